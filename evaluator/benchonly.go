package evaluator

import (
	"context"
	"fmt"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/stored"
	"github.com/optimizer-dev/optimizer/machine"
	"github.com/optimizer-dev/optimizer/store"
)

// ErrUnjudged: Bench was given a job some of whose candidates no shard
// has judged yet.
var ErrUnjudged = stored.ErrUnjudged

// Bench is phase 2, selection and the winner's profile for a job whose
// behaviour phase ran elsewhere. That is the job of a merged store (package
// shard), recorded in db with every candidate judged. It measures, on this
// machine, every candidate that passed its tests, and finishes the job in
// db with its report. The opts argument gives phase 2's configuration. Its
// Base, Candidates and (when empty) Test come from the stored job, and pool
// must have been opened at that base.
//
// The job's samples must all come from one host: a job that has samples
// from another machine is refused with a *store.HostError before anything
// runs.
func Bench(ctx context.Context, pool Pool, db *store.DB, jobID string, opts Options) (*Report, error) {
	sj, err := db.Job(ctx, jobID)
	if err != nil {
		return nil, err
	}
	rows, err := db.Candidates(ctx, sj.ID)
	if err != nil {
		return nil, err
	}
	if err := stored.AllJudged(rows); err != nil {
		return nil, err
	}
	here := machine.Host(ctx)
	hosts, err := db.BenchHosts(ctx, sj.ID)
	if err != nil {
		return nil, err
	}
	for _, h := range hosts {
		if h != here {
			return nil, &store.HostError{JobID: sj.ID, Have: h, Want: here}
		}
	}
	opts.Base = sj.Base
	if opts.Test == "" {
		opts.Test = sj.Test
	}
	opts.Candidates, err = stored.Candidates(rows)
	if err != nil {
		return nil, err
	}
	opts.Shard = shardNone
	j, err := newJob(ctx, pool, db, opts)
	if err != nil {
		return nil, err
	}
	j.id, j.host, j.keepChanges = sj.ID, here, true
	for i, c := range j.cands {
		if err := stored.Restore(&c.res, rows[i]); err != nil {
			return nil, err
		}
	}
	return j.benchOnly(ctx)
}

// shardNone is the zero shard.Spec: Bench is no shard.
var shardNone = Options{}.Shard

// benchOnly runs what follows phase 1 for a job rebuilt from the store.
func (j *job) benchOnly(ctx context.Context) (*Report, error) {
	j.emit(Event{Kind: EventJobStart, Total: len(j.cands), Message: j.id, History: j.history(ctx), Slots: j.size,
		MinSpeedup: j.opts.MinSpeedup})
	j.replayJudged()
	for _, c := range j.cands {
		if c.res.Verdict != VerdictPassed {
			continue
		}
		if err := j.db.ClearBench(ctx, j.id, c.spec.Name); err != nil {
			return nil, err
		}
		if err := j.judgeAgain(ctx, c); err != nil {
			return nil, err
		}
	}
	err := j.measureAndSelect(ctx)
	rep := j.report()
	rep.State = "finished"
	switch {
	case ctx.Err() != nil:
		rep.State, err = "interrupted", ctx.Err()
	case err != nil:
		rep.State = "failed"
	}
	j.finish(rep, err)
	if uerr := j.unrecorded(); uerr != nil && err == nil {
		err = uerr
	}
	j.emit(Event{Kind: EventJobDone, Total: len(j.cands), Done: j.done, Message: rep.State})
	return rep, err
}

// replayJudged says what the shards found, as phase 1 would have. The
// candidates that passed their tests wait for their benchmarks
// (EventTested), and the rest are settled (EventDone). Without it, a reader
// of the events would count the settled ones as tests still to run. Such
// readers are the progress line, its ETA and the daemon's live report. They
// would know of no benchmark to come but the one being measured.
func (j *job) replayJudged() {
	for _, c := range j.cands {
		j.mu.Lock()
		res := c.res
		if res.Verdict != VerdictPassed {
			j.done++
		}
		done := j.done
		j.mu.Unlock()
		if res.Verdict == VerdictPassed {
			j.emit(Event{Kind: EventTested, Phase: "behavior", Candidate: c.spec.Name, Index: c.idx, Result: &res})
		} else {
			j.emit(Event{Kind: EventDone, Candidate: c.spec.Name, Index: c.idx, Done: done, Result: &res})
		}
	}
}

// judgeAgain decides again, in a slot at base, whose versions of its test
// files judge c in phase 2 (stageJudged): base's, unless the job trusts
// candidates' tests. Only a candidate that touches test files needs it.
func (j *job) judgeAgain(ctx context.Context, c *cand) error {
	if len(testPaths(c)) == 0 {
		return nil
	}
	start := time.Now()
	slot, err := j.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("acquire a slot to read %s's test files: %w", c.spec.Name, err)
	}
	defer j.pool.Release(slot)
	edits := c.res.TestEdits
	if err := j.stageJudged(ctx, slot, c); err != nil {
		return fmt.Errorf("stage %s: %w", c.spec.Name, err)
	}
	j.mu.Lock()
	c.res.TestEdits = edits // as phase 1 found them
	j.mu.Unlock()
	j.log.Debug("candidate judged again", "candidate", c.spec.Name, "took", since(start))
	return nil
}
