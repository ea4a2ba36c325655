package evaluator

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"
)

// recoverCandidate turns a panic in candidate c's work into its failed
// verdict (kind error), with the panic and the stack in the failure. That
// is recorded in the store and reported like any other, and the job goes
// on without it. Every goroutine (and loop step) that does one candidate's
// work defers it first thing. The slots that work holds are released by
// the work's own defers, which run before it. A candidate already given a
// final verdict keeps it; the panic is logged.
func (j *job) recoverCandidate(ctx context.Context, c *cand, start time.Time) {
	r := recover()
	if r == nil {
		return
	}
	stack := string(debug.Stack())
	j.log.Error("panic in a candidate's work", "candidate", c.spec.Name, "panic", r, "stack", stack)
	f := &Failure{Kind: FailError,
		Message: fmt.Sprintf("the optimizer panicked while evaluating %s: %v (a bug in the optimizer, not in the candidate: the stack is in the output)", c.spec.Name, r),
		Output:  stack}
	j.mu.Lock()
	open := c.res.Verdict == VerdictPending || c.res.Verdict == VerdictPassed
	if open {
		c.res.Verdict, c.res.Failure = VerdictFailed, f
		c.res.Seconds = time.Since(start).Seconds()
	}
	j.mu.Unlock()
	if open {
		j.settle(ctx, c)
	}
}
