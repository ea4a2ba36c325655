package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/store"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// openPool opens a pool of n slots on r in slots, kept warm on Close when
// keep is set. The harness's pools share a machine lock of their own, so
// that other optimizers benchmarking on a shared machine do not pause them.
func (h *harness) openPool(ctx context.Context, r *synthRepo, slots string, n int, keep bool) (*worktreepool.Pool, error) {
	return h.openPoolWith(ctx, r, slots, n, keep, h.noWatch)
}

func (h *harness) openPoolWith(ctx context.Context, r *synthRepo, slots string, n int, keep, noWatch bool) (*worktreepool.Pool, error) {
	return worktreepool.Open(ctx, worktreepool.Options{Repo: r.dir, Base: r.base, Size: n, Dir: slots, Keep: keep,
		NoWatch: noWatch, MachineLock: filepath.Join(h.work, "machine.lock")})
}

// waitWarm waits until every slot of p is made.
func waitWarm(ctx context.Context, p *worktreepool.Pool) error {
	for {
		st := p.Stats()
		if st.Making == 0 {
			if st.Open == 0 {
				return fmt.Errorf("no slot could be made")
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func closePool(p *worktreepool.Pool) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	return p.Close(ctx)
}

func openStore(ctx context.Context, dir, name string) (*store.DB, error) {
	return store.Open(ctx, filepath.Join(dir, name+".db"))
}

// job is one evaluator.Run with the phase-2 machinery off.
type job struct {
	repo  *synthRepo
	pool  *worktreepool.Pool
	db    *store.DB
	cands []candidate.Candidate
	n     int
	test  string
	trace io.Writer // each event with its time, when set
}

// times are one job's: the whole of evaluator.Run, the part before phase 1
// (resolving and recording the candidates), and phase 1 itself, from its
// start to the last candidate's verdict.
type times struct {
	wall, resolve, phase1 time.Duration
}

// run runs the job, checks that every candidate passed, and returns its
// wall time.
func (j job) run(ctx context.Context) (time.Duration, error) {
	t, err := j.timed(ctx)
	return t.wall, err
}

// timed runs the job, checks that every candidate passed, and returns its
// times.
func (j job) timed(ctx context.Context) (times, error) {
	events := make(chan evaluator.Event, 256)
	var t times
	done := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(done)
		var phase1, last time.Time
		for e := range events {
			if j.trace != nil {
				fmt.Fprintf(j.trace, "%8.3f %-10s %-8s %s %s\n", e.Time.Sub(start).Seconds(), e.Kind, e.Phase, e.Candidate, e.Message)
			}
			switch {
			case e.Kind == evaluator.EventJobStart:
				t.resolve = e.Time.Sub(start)
			case e.Kind == evaluator.EventPhase && e.Phase == "behavior":
				phase1 = e.Time
			case e.Kind == evaluator.EventDone:
				last = e.Time
			}
		}
		if !phase1.IsZero() {
			t.phase1 = last.Sub(phase1)
		}
	}()
	rep, err := evaluator.Run(ctx, j.pool, j.db, evaluator.Options{
		Kind:       "machinery",
		Repo:       j.repo.dir,
		Base:       j.repo.base,
		Candidates: j.cands,
		Test:       j.test,
		Bench:      "none",
		Timeout:    5 * time.Minute,
		// The machinery is measured here, not the sandbox (bench/sandbox
		// measures that); and the test commands run this program again
		// from TMPDIR, which the sandbox hides.
		Sandbox: evaluator.SandboxOff,
		// Every rep runs its tests: the machinery is measured, not the
		// result cache (bench/cache measures that).
		NoCache: true,
		Events:  events,
	})
	t.wall = time.Since(start)
	close(events)
	<-done
	if err != nil {
		return t, err
	}
	for _, c := range rep.Candidates {
		if c.Verdict != evaluator.VerdictPassed {
			msg := ""
			if c.Failure != nil {
				msg = c.Failure.Message + "\n" + c.Failure.Output
			}
			return t, fmt.Errorf("candidate %s: verdict %s: %s", c.Name, c.Verdict, msg)
		}
	}
	return t, nil
}

// primeBaseline runs a job of cands (one of r's own when nil), so that the
// store caches the baseline's tests for test and the later jobs compare
// against it.
func primeBaseline(ctx context.Context, r *synthRepo, p *worktreepool.Pool, db *store.DB, n int, test string, cands []candidate.Candidate) error {
	if cands == nil {
		cands = r.candidates(1, "prime")
	}
	_, err := job{repo: r, pool: p, db: db, cands: cands, n: n, test: test}.run(ctx)
	return err
}
