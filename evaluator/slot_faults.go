package evaluator

import (
	"context"
	"fmt"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/testjudge"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// Faults of the environment: a slot that breaks under a candidate (its
// directory deleted, say), no slot at all, or a baseline that cannot run.
// None of them is the candidate's doing, so none becomes its verdict. A slot
// that broke is retried on another. A job that cannot go on fails as a job
// (ErrEnvironment), with its candidates left unjudged.

// maxSlotTries bounds the slots one candidate's tests are tried in when
// slots break under them.
const maxSlotTries = 3

// testInSlot acquires a slot, stages c and runs its tests. When they fail
// and the slot turns out broken (its work tree or git directory gone), the
// failure may be the environment's. They then run again in another slot,
// up to maxSlotTries slots. A candidate that breaks every slot it gets is
// judged on its last try. The error is for no slot at all.
func (j *job) testInSlot(ctx context.Context, c *cand) (*testjudge.Outcome, *Failure, error) {
	for try := 1; ; try++ {
		slot, err := j.pool.Acquire(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("acquire a slot for candidate %s: %w", c.spec.Name, err)
		}
		if try == 1 {
			j.emit(Event{Kind: EventStart, Phase: "behavior", Candidate: c.spec.Name, Index: c.idx})
		}
		inSlot := time.Now()
		out, fail, sound := j.testHeld(ctx, slot, c)
		j.mu.Lock()
		c.res.TestSeconds += time.Since(inSlot).Seconds()
		j.mu.Unlock()
		if fail == nil || sound || try == maxSlotTries || ctx.Err() != nil {
			return out, fail, nil
		}
		j.log.Warn("slot broke under a candidate: trying another", "candidate", c.spec.Name, "slot", slot.Name(), "failure", fail.Kind)
	}
}

// testHeld is testIn on a slot the caller acquired: it releases the slot
// on every path, a panic included, saying first whether the slot is sound.
func (j *job) testHeld(ctx context.Context, slot *worktreepool.Slot, c *cand) (out *testjudge.Outcome, fail *Failure, sound bool) {
	defer j.pool.Release(slot)
	defer func() { sound = slot.Sound() }()
	out, fail = j.testIn(ctx, slot, c)
	return out, fail, sound
}

// jobFault records a fault of the environment; the first one fails the job.
func (j *job) jobFault(err error) {
	j.mu.Lock()
	first := j.fault == nil
	if first {
		j.fault = err
	}
	j.mu.Unlock()
	if first {
		j.log.Error("the job cannot go on", "err", err)
	}
}

// faulted is the job's error for a fault of the environment, or nil.
func (j *job) faulted() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.fault == nil {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrEnvironment, j.fault)
}

// slots is how many slots the job really had: the pool's size, less the
// slots that could not be made, where the pool says.
func (j *job) slots() int {
	p, ok := j.pool.(interface{ Stats() worktreepool.Stats })
	if !ok {
		return j.size
	}
	st := p.Stats()
	return max(0, min(j.size, st.Size-st.Failed))
}
