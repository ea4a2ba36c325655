package evaluator

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/gotest"
	"github.com/optimizer-dev/optimizer/evaluator/testjudge"
)

// stuckPoll is how often a candidate's running tests are checked against
// base's times (testjudge.Stuck).
const stuckPoll = 500 * time.Millisecond

// watchStuck checks c's running tests, as p reads them, against base's
// times until the returned stop is called. The stop waits for it to end. It
// emits EventStuck for the test it finds stuck, and EventStuck with no
// Message if that test then ends. It does nothing before base's tests have
// finished. Nor does it when they have no times: a cached baseline from
// before they were kept, or a test command that is not go test -json.
func (j *job) watchStuck(ctx context.Context, c *cand, p *gotest.Parser) (stop func()) {
	if j.base == nil || p == nil {
		return func() {}
	}
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		tick := time.NewTicker(stuckPoll)
		defer tick.Stop()
		var named string // the test reported stuck; "" when none is
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			times := j.baseTimes()
			if times == nil {
				continue
			}
			running := p.Running()
			if named != "" && !slices.ContainsFunc(running, func(r gotest.Running) bool { return r.Key == named }) {
				named = ""
				j.emit(Event{Kind: EventStuck, Phase: "behavior", Candidate: c.spec.Name, Index: c.idx})
			}
			if named != "" {
				continue
			}
			if r, took, ok := testjudge.Stuck(running, times, time.Now()); ok {
				named = r.Key
				j.log.Debug("test stuck", "candidate", c.spec.Name, "test", r.Key, "running", since(r.Since), "at_base", took)
				j.event(ctx, "stuck", c.spec.Name, fmt.Sprintf("%s has run %s; %s at base", r.Key, since(r.Since), took))
				j.emit(Event{Kind: EventStuck, Phase: "behavior", Candidate: c.spec.Name, Index: c.idx,
					Message: r.Key, Since: r.Since, AtBase: took})
			}
		}
	}()
	return func() { close(done); <-ended }
}

// baseTimes is how long each of base's tests took that passed; nil while
// base's tests run, or when nothing says.
func (j *job) baseTimes() map[string]float64 {
	select {
	case <-j.base.done:
	default:
		return nil
	}
	if j.base.out == nil || j.base.out.Tests == nil {
		return nil
	}
	return j.base.out.Tests.Elapsed
}
