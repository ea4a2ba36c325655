package daemon

import (
	"context"
	"errors"
	"sync"

	"github.com/optimizer-dev/optimizer/client"
)

// Limits of what the broker keeps for replay.
const (
	// MaxJobEvents bounds the events kept per job; past it a job's oldest
	// events are dropped (a reader resuming from before them gets the rest).
	MaxJobEvents = 20000
	// KeptEndedJobs is how many ended jobs keep their events for replay.
	KeptEndedJobs = 256
	// subBuffer is a subscriber's queue. A reader that lets it fill is cut
	// off (its channel closed) rather than wait for: it resumes with its
	// last id.
	subBuffer = 1024
)

// ErrUnknownJob is returned by Subscribe for a job the broker never saw.
var ErrUnknownJob = errors.New("unknown job")

// Broker fans out job events to subscribers: SSE streams, and whoever in
// the process subscribes (the dashboard). Publishing never blocks: a
// subscriber too slow to keep up is dropped, its channel closed. Every
// event gets a sequence number, unique and increasing across the daemon's
// life, which is its SSE id. A Broker is safe for concurrent use.
type Broker struct {
	mu     sync.Mutex
	seq    uint64
	jobs   map[string]*jobLog
	ended  []string // ended jobs, oldest first, whose logs are kept
	global []client.Event
	subs   map[*subscriber]struct{}
}

type jobLog struct {
	events []client.Event
	ended  bool
}

type subscriber struct {
	job string // "" is every job
	ch  chan client.Event
}

// NewBroker returns an empty broker whose first event will have sequence
// number after+1.
func NewBroker(after uint64) *Broker {
	return &Broker{seq: after, jobs: map[string]*jobLog{}, subs: map[*subscriber]struct{}{}}
}

// Open registers a job, so that it can be subscribed to before its first
// event.
func (b *Broker) Open(job string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.jobs[job] == nil {
		b.jobs[job] = &jobLog{}
	}
}

// Publish numbers e and sends it to the subscribers of its job and of all
// jobs. An event of kind client.EventEnded closes the job's log.
func (b *Broker) Publish(e client.Event) client.Event {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seq++
	e.Seq = b.seq
	l := b.jobs[e.Job]
	if l == nil {
		l = &jobLog{}
		b.jobs[e.Job] = l
	}
	if len(l.events) >= MaxJobEvents {
		l.events = append(l.events[:0:0], l.events[len(l.events)/2:]...)
	}
	l.events = append(l.events, e)
	if len(b.global) >= MaxJobEvents {
		b.global = append(b.global[:0:0], b.global[len(b.global)/2:]...)
	}
	b.global = append(b.global, e)
	if e.Kind == client.EventEnded && !l.ended {
		l.ended = true
		b.ended = append(b.ended, e.Job)
		if len(b.ended) > KeptEndedJobs {
			delete(b.jobs, b.ended[0])
			b.ended = b.ended[1:]
		}
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
// number above lastEventID: first those the broker still holds, then new
// ones as they are published. The channel is closed when ctx ends, after a
// job's client.EventEnded has been sent (for a job's stream), or when the
// reader falls too far behind; a reader resumes then by subscribing again
// with the last Seq it read. A job that the broker does not know is
// ErrUnknownJob: the caller checks the queue for it.
func (b *Broker) Subscribe(ctx context.Context, job string, lastEventID uint64) (<-chan client.Event, error) {
	b.mu.Lock()
	var replay []client.Event
	ended := false
	if job == "" {
		replay = after(b.global, lastEventID)
	} else {
		l := b.jobs[job]
		if l == nil {
			b.mu.Unlock()
			return nil, ErrUnknownJob
		}
		replay = after(l.events, lastEventID)
		ended = l.ended
	}
	ch := make(chan client.Event, len(replay)+subBuffer)
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

// untilEnded passes a job's events on and closes after its last.
func (b *Broker) untilEnded(ctx context.Context, in <-chan client.Event) <-chan client.Event {
	out := make(chan client.Event)
	go func() { // owned by the subscription: it ends with in or ctx
		defer close(out)
		for e := range in {
			select {
			case out <- e:
			case <-ctx.Done():
				return
			}
			if e.Kind == client.EventEnded {
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

func after(events []client.Event, seq uint64) []client.Event {
	for i, e := range events {
		if e.Seq > seq {
			return append([]client.Event(nil), events[i:]...)
		}
	}
	return nil
}
