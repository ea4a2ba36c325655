package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/store"
)

// Limits of what the broker keeps for replay.
const (
	// MaxJobEvents bounds the events kept in memory per job, and those a
	// stream replays from the store. Past it a job's oldest events are
	// dropped from memory. A reader resuming from before them reads them
	// from the store.
	MaxJobEvents = 20000
	// KeptEndedJobs is how many ended jobs keep their events in memory;
	// older ones are read from the store when asked for.
	KeptEndedJobs = 256
	// subBuffer is a subscriber's queue. A reader that lets it fill is cut
	// off (its channel closed) rather than wait for: it resumes with its
	// last id.
	subBuffer = 1024
	// storeTimeout bounds one write or read of events in the store.
	storeTimeout = 10 * time.Second
)

// ErrUnknownJob is returned by Subscribe for a job the broker never saw.
var ErrUnknownJob = errors.New("unknown job")

// eventStore keeps a broker's events: the daemon's store (*store.DB).
type eventStore interface {
	AddQueueEvents(ctx context.Context, events []store.QueueEvent) error
	QueueEvents(ctx context.Context, job string, after uint64, limit int) ([]store.QueueEvent, error)
}

var _ eventStore = (*store.DB)(nil)

// Broker fans out job events to subscribers: SSE streams, and whoever in
// the process subscribes (the dashboard). Publishing never blocks on a
// subscriber: one too slow to keep up is dropped, its channel closed.
// Every event gets a sequence number, unique and increasing across the
// daemon's life and its restarts, which is its SSE id. With a store, every
// event is recorded there before any subscriber sees it, so that a stream
// resumed after a restart replays exactly what came after its id. A Broker
// is safe for concurrent use.
type Broker struct {
	db  eventStore // nil: memory only
	log *slog.Logger

	mu     sync.Mutex
	seq    uint64
	jobs   map[string]*jobLog
	ended  []string // ended jobs, oldest first, whose logs are kept
	global []api.Event
	subs   map[*subscriber]struct{}
}

type jobLog struct {
	events  []api.Event
	ended   bool
	trimmed bool // events were dropped from the front: the store has them
}

type subscriber struct {
	job string // "" is every job
	ch  chan api.Event
}

// NewBroker returns an empty broker, in memory only, whose first event will
// have sequence number after+1.
func NewBroker(after uint64) *Broker {
	return &Broker{seq: after, log: slog.New(slog.DiscardHandler), jobs: map[string]*jobLog{}, subs: map[*subscriber]struct{}{}}
}

// newStoredBroker returns a broker that records every event in db, and
// reads there the events of jobs it does not hold. Its first event is
// numbered after both after and the last event db holds.
func newStoredBroker(ctx context.Context, db *store.DB, after uint64, log *slog.Logger) (*Broker, error) {
	last, err := db.LastQueueEvent(ctx)
	if err != nil {
		return nil, err
	}
	b := NewBroker(max(after, last))
	b.db, b.log = db, log
	return b, nil
}

// Open registers a job, so that it can be subscribed to before its first
// event. A job the store has events of starts with them.
func (b *Broker) Open(job string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.jobLog(job)
}

// jobLog returns job's log, made from the store's events when the broker
// does not hold it; b.mu is held.
func (b *Broker) jobLog(job string) *jobLog {
	if l := b.jobs[job]; l != nil {
		return l
	}
	l := &jobLog{}
	l.events, _ = b.stored(job, 0)
	l.trimmed = len(l.events) == MaxJobEvents
	if n := len(l.events); n > 0 && l.events[n-1].Kind == api.EventEnded {
		b.markEnded(job, l)
	}
	b.jobs[job] = l
	return l
}

// stored reads the events of job ("": every job) after seq from the store,
// the newest MaxJobEvents of them; b.mu is held. Without a store, or when
// it cannot be read, it returns none and false.
func (b *Broker) stored(job string, after uint64) ([]api.Event, bool) {
	if b.db == nil {
		return nil, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	rows, err := b.db.QueueEvents(ctx, job, after, MaxJobEvents)
	if err != nil {
		b.log.Error("read events", "job", job, "err", err)
		return nil, false
	}
	out := make([]api.Event, 0, len(rows))
	for _, r := range rows {
		var e api.Event
		if err := json.Unmarshal(r.Data, &e); err != nil {
			b.log.Warn("unreadable stored event", "job", r.Job, "seq", r.Seq, "err", err)
			continue
		}
		e.Seq = r.Seq
		out = append(out, e)
	}
	return out, true
}

// markEnded closes job's log, and forgets the oldest ended job's log past
// KeptEndedJobs; b.mu is held.
func (b *Broker) markEnded(job string, l *jobLog) {
	if l.ended {
		return
	}
	l.ended = true
	b.ended = append(b.ended, job)
	if len(b.ended) > KeptEndedJobs {
		delete(b.jobs, b.ended[0])
		b.ended = b.ended[1:]
	}
}

// record writes e to the store; b.mu is held. A failed write is logged: the
// event still goes out, and a stream resumed after a restart lacks it.
func (b *Broker) record(e api.Event) {
	if b.db == nil || e.Job == "" {
		return
	}
	data, err := json.Marshal(e)
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
		err = b.db.AddQueueEvents(ctx, []store.QueueEvent{{Seq: e.Seq, Job: e.Job, Data: data}})
		cancel()
	}
	if err != nil {
		b.log.Error("record event", "job", e.Job, "kind", e.Kind, "seq", e.Seq, "err", err)
	}
}

// Publish numbers e, records it, and sends it to the subscribers of its
// job and of all jobs. An event of kind api.EventEnded closes the job's
// log; End publishes one only once.
func (b *Broker) Publish(e api.Event) api.Event {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.publish(b.jobLog(e.Job), e)
}

// End publishes job's api.EventEnded, with its state as the message, unless
// its log has ended already.
func (b *Broker) End(job, state string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if l := b.jobLog(job); !l.ended {
		b.publish(l, api.Event{Job: job, Kind: api.EventEnded, Time: time.Now(), Message: state})
	}
}

// publish is Publish, with b.mu held and e's job's log l.
func (b *Broker) publish(l *jobLog, e api.Event) api.Event {
	b.seq++
	e.Seq = b.seq
	b.record(e)
	if len(l.events) >= MaxJobEvents {
		l.events = append(l.events[:0:0], l.events[len(l.events)/2:]...)
		l.trimmed = true
	}
	l.events = append(l.events, e)
	if len(b.global) >= MaxJobEvents {
		b.global = append(b.global[:0:0], b.global[len(b.global)/2:]...)
	}
	b.global = append(b.global, e)
	if e.Kind == api.EventEnded {
		b.markEnded(e.Job, l)
	}
	for s := range b.subs {
		if s.job != "" && s.job != e.Job {
			continue
		}
		select {
		case s.ch <- e:
		default: // too slow: cut off; it resumes with Last-Event-ID
			delete(b.subs, s)
			close(s.ch)
		}
	}
	return e
}

// Subscribe returns the events of job (every job, for "") with a sequence
// number above lastEventID. First come those the broker holds or the store
// has, then new ones as they are published. The channel is closed when ctx
// ends, or after a job's api.EventEnded has been sent (for a job's stream).
// It is also closed when the reader falls too far behind. A reader then
// resumes by subscribing again with the last Seq it read. A job that
// neither the broker nor the store has events of is ErrUnknownJob: the
// caller checks the queue for it.
func (b *Broker) Subscribe(ctx context.Context, job string, lastEventID uint64) (<-chan api.Event, error) {
	b.mu.Lock()
	var replay []api.Event
	ended := false
	if job == "" {
		replay = b.replayAll(lastEventID)
	} else {
		l := b.jobs[job]
		if l == nil {
			if evs, _ := b.stored(job, 0); len(evs) == 0 {
				b.mu.Unlock()
				return nil, ErrUnknownJob
			}
			l = b.jobLog(job)
		}
		replay = after(l.events, lastEventID)
		if l.trimmed && (len(l.events) == 0 || l.events[0].Seq > lastEventID+1) {
			if evs, ok := b.stored(job, lastEventID); ok {
				replay = evs
			}
		}
		ended = l.ended
	}
	ch := make(chan api.Event, len(replay)+subBuffer)
	for _, e := range replay {
		ch <- e
	}
	if ended {
		b.mu.Unlock()
		close(ch)
		return ch, nil
	}
	s := &subscriber{job: job, ch: ch}
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	context.AfterFunc(ctx, func() { b.unsubscribe(s) })
	if job != "" {
		return b.untilEnded(ctx, ch), nil
	}
	return ch, nil
}

// replayAll is every job's events after seq: from memory when it holds
// them all, else from the store (after a restart, or past what memory
// keeps); b.mu is held.
func (b *Broker) replayAll(seq uint64) []api.Event {
	if seq > 0 && (len(b.global) == 0 || b.global[0].Seq > seq+1) {
		if evs, ok := b.stored("", seq); ok {
			return evs
		}
	}
	return after(b.global, seq)
}

// untilEnded passes a job's events on and closes after its last.
func (b *Broker) untilEnded(ctx context.Context, in <-chan api.Event) <-chan api.Event {
	out := make(chan api.Event)
	go func() { // owned by the subscription: it ends with in or ctx
		defer close(out)
		for e := range in {
			select {
			case out <- e:
			case <-ctx.Done():
				return
			}
			if e.Kind == api.EventEnded {
				return
			}
		}
	}()
	return out
}

func (b *Broker) unsubscribe(s *subscriber) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.subs[s]; ok {
		delete(b.subs, s)
		close(s.ch)
	}
}

// Last returns the sequence number of the last event published.
func (b *Broker) Last() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.seq
}

func after(events []api.Event, seq uint64) []api.Event {
	for i, e := range events {
		if e.Seq > seq {
			return append([]api.Event(nil), events[i:]...)
		}
	}
	return nil
}
