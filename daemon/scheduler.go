package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/store"
)

// Why a job's context was cancelled.
var (
	errCancelled  = errors.New("cancelled by a client")
	errSuperseded = errors.New("cancelled: a newer job of its watch session replaced it")
)

// scheduler takes queued jobs, oldest first, and runs up to MaxJobs of them
// at once; their slots come from the gate. It is owned by Server.Run.
type scheduler struct {
	s    *Server
	wake chan struct{}

	mu      sync.Mutex
	running map[string]*runningJob
}

// runningJob is a job the scheduler runs now.
type runningJob struct {
	id      string
	seq     int64
	session string
	cancel  context.CancelCauseFunc
	done    chan struct{} // closed once its end is recorded
	live    *liveReport
	gate    atomic.Pointer[gateJob] // its account at the gate, once it has one
	started time.Time
}

func newScheduler(s *Server) *scheduler {
	return &scheduler{s: s, wake: make(chan struct{}, 1), running: map[string]*runningJob{}}
}

// poke makes the scheduler look at the queue again.
func (sc *scheduler) poke() {
	select {
	case sc.wake <- struct{}{}:
	default:
	}
}

// run starts queued jobs as room frees, until ctx ends; then it cancels
// the running jobs and waits for them. Their rows stay "running", so that
// the next daemon queues them again, as after a crash.
func (sc *scheduler) run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		sc.startQueued(ctx, &wg)
		select {
		case <-ctx.Done():
			return // the jobs' contexts derive from ctx: they stop
		case <-sc.wake:
		}
	}
}

func (sc *scheduler) startQueued(ctx context.Context, wg *sync.WaitGroup) {
	sc.mu.Lock()
	room := sc.s.opts.MaxJobs - len(sc.running)
	sc.mu.Unlock()
	if room <= 0 {
		return
	}
	jobs, err := sc.s.db.QueuedJobs(ctx, store.QueueFilter{States: []string{store.QueueQueued}, Oldest: true, Limit: room})
	if err != nil {
		sc.s.log.Error("read queue", "err", err)
		return
	}
	for _, qj := range jobs {
		if err := sc.s.db.StartQueued(ctx, qj.ID); err != nil {
			continue // cancelled meanwhile
		}
		var spec jobSpec
		if err := json.Unmarshal(qj.Request, &spec); err != nil {
			sc.s.endJob(ctx, qj.ID, store.QueueFailed, fmt.Sprintf("read the queued request: %v", err), nil)
			continue
		}
		jctx, cancel := context.WithCancelCause(ctx)
		rj := &runningJob{id: qj.ID, seq: qj.Seq, started: time.Now(), session: spec.Request.Session, cancel: cancel,
			done: make(chan struct{}), live: newLiveReport(qj, &spec)}
		sc.mu.Lock()
		sc.running[qj.ID] = rj
		sc.mu.Unlock()
		sc.s.broker.Open(qj.ID)
		sc.s.met.started(qj.Submitted)
		wg.Go(func() {
			defer func() {
				sc.mu.Lock()
				delete(sc.running, qj.ID)
				sc.mu.Unlock()
				close(rj.done)
				cancel(nil)
				sc.poke()
			}()
			sc.s.runJob(jctx, rj, &spec)
		})
	}
}

// get returns the running job with this id, or nil.
func (sc *scheduler) get(id string) *runningJob {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.running[id]
}

// count returns how many jobs run now.
func (sc *scheduler) count() int {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return len(sc.running)
}

// supersede cancels the running jobs of session other than keep.
func (sc *scheduler) supersede(session, keep string) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	for id, rj := range sc.running {
		if rj.session == session && id != keep {
			rj.cancel(errSuperseded)
		}
	}
}

// runJob runs one job on its repository's warm pool and records its end.
func (s *Server) runJob(ctx context.Context, rj *runningJob, spec *jobSpec) {
	log := s.log.With("job", rj.id)
	log.Info("job start", "repo", spec.Root, "candidates", len(spec.Candidates))
	// The policy may have narrowed since the job was accepted (a restart
	// with other flags), or bwrap may have gone: it is checked again.
	if err := s.opts.Policy.check(spec.Request, s.opts.sandboxErr); err != nil {
		s.finishJob(ctx, rj, nil, fmt.Errorf("refused by the daemon's policy: %w", err))
		return
	}
	e, err := s.pools.get(ctx, spec.Root, spec.CommonDir, spec.Base)
	if err != nil {
		s.finishJob(ctx, rj, nil, err)
		return
	}
	parallel := s.opts.Slots
	if p := spec.Request.Options.Parallel; p > 0 && p < parallel {
		parallel = p
	}
	opts, err := spec.evaluatorOptions(parallel, s.opts.CPUs, s.opts.Logger)
	if err != nil {
		s.pools.put(context.WithoutCancel(ctx), e)
		s.finishJob(ctx, rj, nil, err)
		return
	}
	opts.Sandbox = s.opts.Policy.sandboxMode(spec.Request.Options.Sandbox)
	opts.SandboxHide = s.privateDirs()
	opts.ID = rj.id
	var dropped []string
	opts.Env, dropped = s.opts.Policy.jobEnv(spec.Request.Options.Env)
	if len(dropped) > 0 {
		log.Info("the policy keeps these environment variables from the job", "dropped", dropped)
	}
	if err := keepInterruptedRun(ctx, e.db, rj.id); err != nil {
		s.pools.put(context.WithoutCancel(ctx), e)
		s.finishJob(ctx, rj, nil, err)
		return
	}
	rj.live.setOptions(opts, parallel)
	events := make(chan evaluator.Event, 256)
	opts.Events = events
	fwd := make(chan struct{})
	go func() { // owned by runJob: it drains events until Run returns
		defer close(fwd)
		for ev := range events {
			if ev.Kind == evaluator.EventJobStart {
				if err := s.db.SetRunID(context.WithoutCancel(ctx), rj.id, ev.Message); err != nil {
					log.Warn("record run id", "err", err)
				}
			}
			rj.live.update(ev)
			s.broker.Publish(api.FromEvaluator(rj.id, ev))
		}
	}()
	gj := &gateJob{seq: rj.seq, max: parallel}
	rj.gate.Store(gj)
	pool := newJobPool(s.gate, gj, e.pool)
	rep, err := s.opts.Run(ctx, pool, e.db, opts)
	close(events)
	<-fwd
	s.pools.put(context.WithoutCancel(ctx), e) // before the end is published: the pool is idle by then
	s.finishJob(ctx, rj, rep, err)
}

// finishJob records how a job ended, unless the daemon is stopping: then
// its row stays running and the next daemon runs it again.
func (s *Server) finishJob(ctx context.Context, rj *runningJob, rep *evaluator.Report, err error) {
	cause := context.Cause(ctx)
	state, msg := store.QueueFinished, ""
	switch {
	case ctx.Err() != nil && (errors.Is(cause, errCancelled) || errors.Is(cause, errSuperseded)):
		state, msg = store.QueueCancelled, cause.Error()
	case ctx.Err() != nil:
		s.log.Info("job interrupted by shutdown: it runs again at the next start", "job", rj.id)
		return
	case err != nil:
		state, msg = store.QueueFailed, err.Error()
	}
	sc := s.sched
	sc.mu.Lock()
	delete(sc.running, rj.id) // before its end is published: whoever reads it sees it ended
	sc.mu.Unlock()
	var b []byte
	if rep != nil { // a cancelled job's report says interrupted, as a CLI run's does
		var merr error
		if b, merr = json.Marshal(rep); merr != nil {
			s.log.Error("the job's report cannot be kept", "job", rj.id, "err", merr)
		}
	}
	s.met.ran(state, time.Since(rj.started), rep)
	s.endJob(context.WithoutCancel(ctx), rj.id, state, msg, b)
	s.log.Info("job end", "job", rj.id, "state", state, "error", msg)
}

// endJob records a job's end and publishes it.
func (s *Server) endJob(ctx context.Context, id, state, msg string, report []byte) {
	if err := s.db.EndQueued(ctx, id, state, msg, report); err != nil {
		s.log.Error("record job end", "job", id, "err", err)
	}
	s.met.ended(state)
	s.broker.End(id, state)
}

// privateDirs are the daemon's directories that no candidate's sandbox
// may show: its socket's, its state's, its store's and its token's.
func (s *Server) privateDirs() []string {
	dirs := []string{filepath.Dir(s.opts.Socket), s.opts.StateDir}
	for _, f := range []string{s.opts.StateDB, s.opts.TokenFile} {
		if f != "" {
			dirs = append(dirs, filepath.Dir(f))
		}
	}
	return dirs
}
