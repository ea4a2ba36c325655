package evaluator

import (
	"context"
	"fmt"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/gotest"
)

// A candidate's test that has run far longer than it took at base is most
// likely stuck, as a loop that never ends is: it will run to --timeout.
// Saying so early gives the ETA its one sure sign of a hang (ETA predicts
// that candidate to its timeout) and tells the user which test it is.
//
// The rule: past stuckRatio times its time at base and stuckGrace beyond
// it. The ratio is far above what load does to a test on a shared machine,
// where a candidate's tests run beside other work and the load moves 2×
// within minutes. It is far below a real hang's: a test of 0.01 s at base,
// stuck, runs to a timeout of minutes. The grace keeps
// a test of a few milliseconds at base from being called stuck by one
// scheduling pause or garbage collection. A test the rule names that then
// ends was slow, not stuck: the event is taken back.
//
// A test with subtests is never named itself. go test's elapsed time for
// it leaves out its parallel subtests' time, though it runs until they end.
// A test whose subtests all call t.Parallel takes 0 s at base, so the rule
// would call it stuck after stuckGrace. Its subtests are judged instead.
const (
	stuckRatio = 10
	stuckGrace = time.Second
	stuckPoll  = 500 * time.Millisecond // how often a candidate's running tests are checked
)

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
			if named != "" && !isRunning(running, named) {
				named = ""
				j.emit(Event{Kind: EventStuck, Phase: "behavior", Candidate: c.spec.Name, Index: c.idx})
			}
			if named != "" {
				continue
			}
			if r, took, ok := stuckTest(running, times, time.Now()); ok {
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

// stuckTest is the running test that is stuck at now by the rule above, and
// how long it took at base. Of several (a stuck subtest's parents are past
// their base times too), the one that started last: the innermost.
func stuckTest(running []gotest.Running, times map[string]float64, now time.Time) (r gotest.Running, took time.Duration, ok bool) {
	for _, t := range running {
		s, known := times[t.Key]
		if !known || t.Subtests {
			continue // a new test, nothing to compare with; or a parent, see above
		}
		at := time.Duration(s * float64(time.Second))
		el := now.Sub(t.Since)
		if el > stuckRatio*at && el > at+stuckGrace && (!ok || t.Since.After(r.Since)) {
			r, took, ok = t, at, true
		}
	}
	return r, took, ok
}

func isRunning(running []gotest.Running, key string) bool {
	for _, r := range running {
		if r.Key == key {
			return true
		}
	}
	return false
}
