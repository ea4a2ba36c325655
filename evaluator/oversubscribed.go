package evaluator

import (
	"context"
	"fmt"
	"github.com/optimizer-dev/optimizer/evaluator/testjudge"
)

// Oversubscription: with more slots than CPUs, tests share CPUs. A test
// that passes alone can run past --timeout beside the others; on 2 CPUs, -j
// 0 turned 42 of 60 passes into timeouts. So a test command that times out
// while the job runs more slots than CPUs is run again alone, before its
// candidate fails. It runs with the whole pool (AcquireExclusive).

// oversubscribed reports whether the job runs more slots than CPUs.
func (j *job) oversubscribed() bool { return j.size > j.opts.CPUs }

// testAlone stages c again in a slot of its own, with nothing else
// running, and runs its tests once more.
func (j *job) testAlone(ctx context.Context, c *cand) (*testjudge.Outcome, *Failure) {
	j.log.Info("re-run alone after a timeout", "candidate", c.spec.Name, "slots", j.size, "cpus", j.opts.CPUs)
	slots, err := j.pool.AcquireExclusive(ctx)
	if err != nil {
		return nil, &Failure{Kind: FailError, Message: fmt.Sprintf("acquire the pool to re-run alone after a timeout: %v", err)}
	}
	defer func() {
		for _, s := range slots {
			j.pool.Release(s)
		}
	}()
	out, fail := j.testIn(ctx, slots[0], c)
	switch {
	case fail != nil && fail.Kind == FailTimeout:
		fail.Message += fmt.Sprintf(", also when re-run alone (it first timed out beside other tests: %d slots on %d CPUs)", j.size, j.opts.CPUs)
	case fail == nil:
		j.mu.Lock()
		c.res.Note = fmt.Sprintf("timed out beside other tests (%d slots on %d CPUs); re-run alone, it finished in time", j.size, j.opts.CPUs)
		j.mu.Unlock()
	}
	return out, fail
}

// baseAlone runs base's tests again alone, as testAlone does a candidate's.
func (j *job) baseAlone(ctx context.Context) (*testjudge.Outcome, error) {
	j.log.Info("re-run the baseline alone after a timeout", "slots", j.size, "cpus", j.opts.CPUs)
	slots, err := j.pool.AcquireExclusive(ctx)
	if err != nil {
		return nil, fmt.Errorf("acquire the pool to re-run the baseline alone: %w", err)
	}
	defer func() {
		for _, s := range slots {
			j.pool.Release(s)
		}
	}()
	return j.runTests(ctx, slots[0], nil)
}
