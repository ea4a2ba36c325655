package testjudge

import (
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
)

// Stuck is the running test that is stuck at now by the rule above, and
// how long it took at base. Of several (a stuck subtest's parents are past
// their base times too), the one that started last: the innermost.
func Stuck(running []gotest.Running, times map[string]float64, now time.Time) (r gotest.Running, took time.Duration, ok bool) {
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
