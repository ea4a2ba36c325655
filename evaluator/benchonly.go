package evaluator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/apply"
	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/machine"
	"github.com/optimizer-dev/optimizer/store"
)

// ErrUnjudged: Bench was given a job some of whose candidates no shard
// has judged yet.
var ErrUnjudged = errors.New("candidates no shard has judged")

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
	if err := allJudged(rows); err != nil {
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
	opts.Candidates, err = storedCandidates(rows)
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
		if err := restoreResult(&c.res, rows[i]); err != nil {
			return nil, err
		}
	}
	return j.benchOnly(ctx)
}

// shardNone is the zero shard.Spec: Bench is no shard.
var shardNone = Options{}.Shard

func allJudged(rows []store.Candidate) error {
	var names []string
	for _, r := range rows {
		if r.Verdict == string(VerdictPending) || r.Verdict == "" {
			names = append(names, r.Name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	if len(names) > 10 {
		names = append(names[:10], fmt.Sprintf("and %d more", len(names)-10))
	}
	return fmt.Errorf("%w: %s: merge the stores of every shard first", ErrUnjudged, strings.Join(names, ", "))
}

// storedCandidates rebuilds the job's candidates. Those that passed get the
// changes the store kept, as they need to be staged. So does every measured
// one, for the winner's tie-break (the smaller change). The rest are
// rebuilt by name alone, and are not staged again.
func storedCandidates(rows []store.Candidate) ([]candidate.Candidate, error) {
	out := make([]candidate.Candidate, len(rows))
	for i, r := range rows {
		c := candidate.Candidate{Name: r.Name, Source: r.Source, Parent: r.Parent, Explanation: r.Explanation}
		if r.Verdict == string(VerdictPassed) && r.Change == nil {
			return nil, fmt.Errorf("candidate %s passed its tests, but the store kept no change to benchmark: was it made by optimizer run --shard?", r.Name)
		}
		if r.Change != nil {
			var ch apply.Change
			if err := json.Unmarshal(r.Change, &ch); err != nil {
				return nil, fmt.Errorf("read the kept change of %s: %w", r.Name, err)
			}
			c.Patch, c.Deleted = []byte(ch.Patch), ch.Deleted
			if len(ch.Files) > 0 {
				c.Files = make(map[string][]byte, len(ch.Files))
				for p, s := range ch.Files {
					c.Files[p] = []byte(s)
				}
			}
		}
		out[i] = c
	}
	return out, nil
}

// restoreResult sets res to what the store holds of a candidate.
func restoreResult(res *CandidateResult, r store.Candidate) error {
	if r.Result != nil {
		if err := json.Unmarshal(r.Result, res); err != nil {
			return fmt.Errorf("read the result of %s: %w", r.Name, err)
		}
	}
	res.Name, res.ID, res.Verdict, res.DuplicateOf = r.Name, r.ContentID, Verdict(r.Verdict), r.DuplicateOf
	switch res.Verdict {
	case VerdictPassed:
		res.Note = "" // the shard's "to be benchmarked"
	case VerdictWinner:
		// A bench run before chose it; this one chooses again among all
		// that were measured, and would otherwise crown a second. Its
		// verdict before that choice: faster, or not-faster and faster on
		// some (Decision.Subset), which the choice ranks after faster.
		res.Verdict = VerdictFaster
		if res.Qualifier == QualifierFasterOnSome {
			res.Verdict = VerdictNotFaster
		}
	}
	return nil
}

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
