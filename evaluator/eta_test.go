package evaluator

import (
	"fmt"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/gotest"
)

// etaClock feeds an ETA events at given seconds since the start.
type etaClock struct {
	t     *testing.T
	e     *ETA
	start time.Time
	now   time.Time
}

func newETAClock(t *testing.T, e *ETA) *etaClock {
	start := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	return &etaClock{t: t, e: e, start: start, now: start}
}

func (c *etaClock) at(s float64, evs ...Event) {
	c.now = c.start.Add(time.Duration(s * float64(time.Second)))
	for _, ev := range evs {
		c.e.Observe(ev, c.now)
	}
}

// want checks the estimate at the clock's time, to a microsecond: a
// benchmark may be expected to take a third of a pair, which is no whole
// number of nanoseconds.
func (c *etaClock) want(what string, left, most time.Duration, tests bool) {
	c.t.Helper()
	got, ok := c.e.Estimate(c.now)
	if !ok || (got.Left-left).Abs() > time.Microsecond || (got.Most-most).Abs() > time.Microsecond || got.Tests != tests {
		c.t.Errorf("%s: %+v (ok %v), want left %s, most %s, tests %v", what, got, ok, left, most, tests)
	}
}

var failedResult = &CandidateResult{Verdict: VerdictFailed}

// TestETA follows a job of four candidates on two slots through both
// phases, checking each rule of ETA's estimate.
func TestETA(t *testing.T) {
	c := newETAClock(t, &ETA{Slots: 2, Timeout: time.Minute, Budget: 20 * time.Second, MinPairs: 2, MaxPairs: 10})
	c.at(0, Event{Kind: EventJobStart, Total: 4}, Event{Kind: EventPhase, Phase: "behavior"},
		Event{Kind: EventStart, Phase: "behavior", Candidate: "a"}, Event{Kind: EventStart, Phase: "behavior", Candidate: "b"})
	if got, ok := c.e.Estimate(c.now); ok {
		t.Errorf("before any test finished: %+v, want no estimate", got)
	}
	c.at(1, Event{Kind: EventDone, Candidate: "a", Done: 1, Result: failedResult})
	// Only a's 1 s is known: b has run as long, so as long again; c and d
	// queued at 1 s; 3 s over two slots. Most: b to its timeout and the
	// slack past it (timeoutSlack).
	c.want("after a failed", 1500*time.Millisecond, 60*time.Second, true)
	c.at(2, Event{Kind: EventBaseline, Message: "baseline tests: 8 passed in 2s"}, Event{Kind: EventStart, Phase: "behavior", Candidate: "c"})
	c.at(3, Event{Kind: EventTested, Candidate: "b"}, Event{Kind: EventStart, Phase: "behavior", Candidate: "d"})
	// The reference is b's 3 s (a pass), not base's 2 s nor the mean
	// with a's quick failure: c has 2 s left, d 3 s.
	c.want("after b passed", 3*time.Second, 61*time.Second, true)
	// A wait for the machine is not test time.
	c.at(4, Event{Kind: EventWaiting, Message: "waiting for the machine: someone"})
	c.at(14, Event{Kind: EventWaiting})
	c.want("after a 10 s wait", 2*time.Second, 60*time.Second, true)
	// Phase 2 (work clock 6 at 16 s): b's benchmark, 1 s of set-up, then a
	// pair a second, base's samples 0.5 s: its first pair ends at 18 s.
	c.at(16, Event{Kind: EventTested, Candidate: "c"}, Event{Kind: EventDone, Candidate: "d", Done: 2, Result: failedResult},
		Event{Kind: EventPhase, Phase: "benchmark"}, Event{Kind: EventStart, Phase: "benchmark", Candidate: "b"})
	c.at(18, Event{Kind: EventSample, Candidate: "b", BaseSample: 500 * time.Millisecond})
	c.at(19, Event{Kind: EventSample, Candidate: "b", BaseSample: 500 * time.Millisecond, ForecastUnchanged: 4})
	c.at(20, Event{Kind: EventSample, Candidate: "b", BaseSample: 500 * time.Millisecond, ForecastUnchanged: 4})
	// No benchmark finished, and b gives no forecast of its own: b takes
	// the mean of the three kinds of candidate's pairs, a clear change's
	// first claim (2, MinPairs), the 4 one that changes nothing would
	// take and the cap's 10: 5⅓, 2⅓ more at its 1 s. c to come takes
	// their median draw, 4, of two base samples, after a set-up of b's
	// 1 s (to its first pair's end less the pair's two base samples)
	// without base's part in it: (1 s − 1.5 base samples) / 2 = 0.125 s.
	// Most: b to the cap, 7 more, and c the cap's 10.
	c.want("during b", 2*time.Second+time.Second/3+4125*time.Millisecond, 17125*time.Millisecond, false)
	c.at(21, Event{Kind: EventSample, Candidate: "b", BaseSample: 500 * time.Millisecond, ForecastUnchanged: 4},
		Event{Kind: EventDone, Candidate: "b", Done: 3, Result: &CandidateResult{Verdict: VerdictFaster}},
		Event{Kind: EventStart, Phase: "benchmark", Candidate: "c"})
	c.at(22, Event{Kind: EventSample, Candidate: "c", BaseSample: 500 * time.Millisecond})
	c.at(23.5, Event{Kind: EventSample, Candidate: "c", BaseSample: 500 * time.Millisecond})
	// c is slower (1.5 s a pair): b settled in 4 pairs, which with
	// priorWeight (2) each of 2, 4 and 10 is 36 / 7, so 3 1/7 more at c's
	// own pace; at most 8.
	c.want("during c", 4*time.Second+5*time.Second/7, 12*time.Second, false)
	for _, s := range []float64{25, 26.5, 28, 29.5, 31} {
		c.at(s, Event{Kind: EventSample, Candidate: "c", BaseSample: 500 * time.Millisecond})
	}
	// Past those 4 pairs without settling: to the cap.
	c.want("c past 4 pairs", 4500*time.Millisecond, 4500*time.Millisecond, false)
	c.at(32, Event{Kind: EventDone, Candidate: "c", Done: 4})
	if got, ok := c.e.Estimate(c.now); ok {
		t.Errorf("after the last verdict: %+v, want none", got)
	}
}

// TestETA_NoBench: with --bench none the tests are the whole job, and
// the estimate is not marked as the tests' only.
func TestETA_NoBench(t *testing.T) {
	c := newETAClock(t, &ETA{Slots: 1, NoBench: true})
	c.at(0, Event{Kind: EventJobStart, Total: 3}, Event{Kind: EventPhase, Phase: "behavior"},
		Event{Kind: EventStart, Phase: "behavior", Candidate: "a"})
	c.at(2, Event{Kind: EventBaseline, Message: "baseline tests: 1 passed"}, Event{Kind: EventTested, Candidate: "a"},
		Event{Kind: EventStart, Phase: "behavior", Candidate: "b"})
	// b and c at base's and a's 2 s, one slot; no timeout, so no more than that.
	c.want("after a", 4*time.Second, 4*time.Second, false)
}

// TestETA_SlotsFromJobStart: an ETA that does not know the job's slots (a
// daemon's client: the daemon chooses them) says nothing until the job's
// start event gives them, and then what one told them would.
func TestETA_SlotsFromJobStart(t *testing.T) {
	unknown := newETAClock(t, &ETA{NoBench: true})
	unknown.at(0, Event{Kind: EventJobStart, Total: 5}, Event{Kind: EventPhase, Phase: "behavior"},
		Event{Kind: EventStart, Phase: "behavior", Candidate: "a"})
	unknown.at(2, Event{Kind: EventTested, Candidate: "a"})
	if got, ok := unknown.e.Estimate(unknown.now); ok {
		t.Errorf("with no slots known: %+v, want no estimate", got)
	}
	for _, c := range []*etaClock{newETAClock(t, &ETA{Slots: 2, NoBench: true}), newETAClock(t, &ETA{NoBench: true})} {
		c.at(0, Event{Kind: EventJobStart, Total: 5, Slots: 2}, Event{Kind: EventPhase, Phase: "behavior"},
			Event{Kind: EventStart, Phase: "behavior", Candidate: "a"})
		c.at(2, Event{Kind: EventTested, Candidate: "a"})
		// b to e at a's 2 s, over two slots.
		c.want("after a, two slots", 4*time.Second, 4*time.Second, false)
	}
}

// TestETA_CachedBaseline: a baseline from the cache took no time in this
// job; the run it was cached from (AtBase) is the reference for a test
// until a candidate's test ends. A cached baseline without it (an older
// daemon's event) gives none.
func TestETA_CachedBaseline(t *testing.T) {
	for _, tt := range []struct {
		name   string
		atBase time.Duration
		ok     bool
		left   time.Duration
	}{
		// a has run 1 s of base's 3 s, b is queued: 2 s + 3 s on one slot.
		{"WithTime", 3 * time.Second, true, 5 * time.Second},
		{"WithoutTime", 0, false, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newETAClock(t, &ETA{Slots: 1, NoBench: true})
			c.at(0, Event{Kind: EventJobStart, Total: 2}, Event{Kind: EventPhase, Phase: "behavior"},
				Event{Kind: EventBaseline, Message: "baseline tests (cached): 1 passed", AtBase: tt.atBase},
				Event{Kind: EventStart, Phase: "behavior", Candidate: "a"})
			got, ok := c.e.Estimate(c.now.Add(time.Second))
			if ok != tt.ok || got.Left != tt.left {
				t.Errorf("with a cached baseline of %s: %+v (ok %v), want left %s (ok %v)", tt.atBase, got, ok, tt.left, tt.ok)
			}
		})
	}
}

// TestETA_FirstSetup: the first benchmark's set-up has base's build and
// calibration in it, which no later one repeats; a later one is predicted
// as the first without base's part until a later one is seen, and then as
// the later ones were.
func TestETA_FirstSetup(t *testing.T) {
	c := newETAClock(t, &ETA{Slots: 1, MinPairs: 4, MaxPairs: 4})
	c.at(0, Event{Kind: EventJobStart, Total: 3}, Event{Kind: EventPhase, Phase: "behavior"})
	for _, n := range []string{"a", "b", "c"} {
		c.at(0, Event{Kind: EventStart, Phase: "behavior", Candidate: n}, Event{Kind: EventTested, Candidate: n})
	}
	// a: 6.4 s from its start to its first pair's end, base's samples
	// 0.4 s, a pair a second.
	c.at(0, Event{Kind: EventPhase, Phase: "benchmark"}, Event{Kind: EventStart, Phase: "benchmark", Candidate: "a"})
	for i := range 4 {
		c.at(6.4+float64(i), Event{Kind: EventSample, Candidate: "a", BaseSample: 400 * time.Millisecond})
	}
	// a's set-up is 6.4 s less its first pair, two base samples: 5.6 s.
	// b and c to come, each (5.6 s − 1.5 × 0.4 s) / 2 = 2.5 s of set-up
	// and 4 pairs of 0.8 s; a has none left.
	c.want("after a's pairs", 2*(2500+3200)*time.Millisecond, 2*(2500+3200)*time.Millisecond, false)
	c.at(9.4, Event{Kind: EventDone, Candidate: "a", Done: 1}, Event{Kind: EventStart, Phase: "benchmark", Candidate: "b"})
	// b has run 0 s of its predicted set-up: 2.5 s + 3.2 s each.
	c.want("b's start", 2*(2500+3200)*time.Millisecond, 2*(2500+3200)*time.Millisecond, false)
	c.at(11.4, Event{Kind: EventSample, Candidate: "b", BaseSample: 400 * time.Millisecond})
	// b's own set-up, 2 s less its first pair, 1.2 s, is now c's; b has 3
	// pairs left at 0.8 s.
	c.want("b's first pair", (2400+1200+3200)*time.Millisecond, (2400+1200+3200)*time.Millisecond, false)
}

// TestETA_FirstClaim: --bench-budget stops no benchmark before its first
// claim (stats.Sequential.FirstClaim), so no benchmark is predicted
// shorter than its set-up and that many pairs, however small the budget.
func TestETA_FirstClaim(t *testing.T) {
	c := newETAClock(t, &ETA{Slots: 1, Budget: 5 * time.Second, MinPairs: 2, MaxPairs: 20, FirstClaim: 8})
	c.at(0, Event{Kind: EventJobStart, Total: 2}, Event{Kind: EventPhase, Phase: "behavior"})
	for _, n := range []string{"a", "b"} {
		c.at(0, Event{Kind: EventStart, Phase: "behavior", Candidate: n}, Event{Kind: EventTested, Candidate: n})
	}
	c.at(0, Event{Kind: EventPhase, Phase: "benchmark"}, Event{Kind: EventStart, Phase: "benchmark", Candidate: "a"})
	c.at(2.75, Event{Kind: EventSample, Candidate: "a", BaseSample: 500 * time.Millisecond})
	// a: 7 more pairs of 1 s to its first claim, though its budget ends
	// in 2.25 s; b: a set-up of (1.75 s − 0.75 s) / 2 (a's, less its
	// first pair, less base's part) and 8 pairs.
	c.want("a's first pair", 15500*time.Millisecond, 15500*time.Millisecond, false)
}

// TestETA_Forecast: the benchmark being measured takes the pairs its
// rounds are on course to (Event.Forecast), not those expected of one to
// come; without a forecast, those. One to come takes, before any has
// finished, the pairs one that changes nothing would take at the spread
// seen (Event.ForecastUnchanged); without that, the middle of the first
// claim and the cap.
func TestETA_Forecast(t *testing.T) {
	// b's set-up: a's (its first pair ends at 2 s, less the pair's 1 s)
	// without base's part: (1 s − 1.5 × 0.5 s) / 2.
	const setupB = 125 * time.Millisecond
	for _, tt := range []struct {
		name                string
		forecast, unchanged int
		left                time.Duration
	}{
		// a: 2 pairs of 1 s done, 6 to its forecast 8; b: its set-up
		// and the median draw of the three kinds of candidate's pairs:
		// the first claim's 8, the cap's 20 and, before any unchanged
		// forecast, their geometric middle, 13.
		{"Settles", 8, 0, 6*time.Second + setupB + 13*time.Second},
		// a's look at this pair settles: only b is left.
		{"Now", 2, 0, setupB + 13*time.Second},
		// a: 18 more to the cap's 20.
		{"Cap", 20, 0, 18*time.Second + setupB + 13*time.Second},
		// No forecast (a client that does not relay it): a takes the
		// mean pairs of one to come, (8 + 13 + 20) / 3 = 13⅔.
		{"None", 0, 0, 11*time.Second + 2*time.Second/3 + setupB + 13*time.Second},
		// b takes the 10 pairs one that changes nothing would.
		{"Unchanged", 8, 10, 6*time.Second + setupB + 10*time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newETAClock(t, &ETA{Slots: 1, MinPairs: 2, MaxPairs: 20, FirstClaim: 8})
			c.at(0, Event{Kind: EventJobStart, Total: 2}, Event{Kind: EventPhase, Phase: "behavior"})
			for _, n := range []string{"a", "b"} {
				c.at(0, Event{Kind: EventStart, Phase: "behavior", Candidate: n}, Event{Kind: EventTested, Candidate: n})
			}
			c.at(0, Event{Kind: EventPhase, Phase: "benchmark"}, Event{Kind: EventStart, Phase: "benchmark", Candidate: "a"})
			c.at(2, Event{Kind: EventSample, Candidate: "a", BaseSample: 500 * time.Millisecond})
			c.at(3, Event{Kind: EventSample, Candidate: "a", BaseSample: 500 * time.Millisecond, Forecast: tt.forecast, ForecastUnchanged: tt.unchanged})
			c.want("a's second pair", tt.left, 18*time.Second+setupB+20*time.Second, false)
		})
	}
}

// TestETA_PriorMedian: a benchmark to come takes the mean of the finished
// ones' pairs and of priorWeight (2) more at each of the three kinds of
// candidate's: the first claim, the cap and, for one that changes
// nothing, the median of the benchmarks' unchanged forecasts, one each:
// a's noisy pairs forecast the cap 21 times, b's and c's quiet ones 8
// seven times each, and the cap is not what one that changes nothing is
// expected to take.
func TestETA_PriorMedian(t *testing.T) {
	c := threeBenched(t, nil)
	// d, alone to come, is drawn from 22, 8, 8, and 8, 8 and 30 twice
	// over: 8 pairs of 1 s in the median draw (6 in 9), after a set-up
	// of b's and c's 1 s.
	c.want("after c", 9*time.Second, 31*time.Second, false)
	// d at its start, before its first pair, is expected the mean:
	// (22 + 8 + 8 + 2 × (8 + 8 + 30)) / 9 = 14 4/9 pairs; at most the
	// cap's 30. Were a's forecast of the cap what one that changes
	// nothing takes, it would be 19⅓.
	c.at(41, Event{Kind: EventStart, Phase: "benchmark", Candidate: "d"})
	c.want("d started", 15*time.Second+4*time.Second/9, 31*time.Second, false)
}

// threeBenched is a job of four candidates, and of more that passed their
// tests after them, whose first three have been benchmarked, a in 22 pairs
// and b and c in 8, all at a second a pair and a second of set-up, with
// history as the job-start event's History. It ends at 41 s.
func threeBenched(t *testing.T, history []PastBenchmark, more ...string) *etaClock {
	c := newETAClock(t, &ETA{Slots: 1, MinPairs: 6, MaxPairs: 30, FirstClaim: 8})
	c.at(0, Event{Kind: EventJobStart, Total: 4 + len(more), History: history}, Event{Kind: EventPhase, Phase: "behavior"})
	for _, n := range append([]string{"a", "b", "c", "d"}, more...) {
		c.at(0, Event{Kind: EventStart, Phase: "behavior", Candidate: n}, Event{Kind: EventTested, Candidate: n})
	}
	c.at(0, Event{Kind: EventPhase, Phase: "benchmark"})
	// Each: a second of set-up, then a pair a second.
	at := 0.0
	for k, b := range []struct {
		name         string
		pairs, unchd int
	}{{"a", 22, 30}, {"b", 8, 8}, {"c", 8, 8}} {
		c.at(at, Event{Kind: EventStart, Phase: "benchmark", Candidate: b.name})
		at++
		for i := 1; i <= b.pairs; i++ {
			u := b.unchd
			if i == 1 {
				u = 0 // one pair has no spread
			}
			at++
			c.at(at, Event{Kind: EventSample, Candidate: b.name, BaseSample: 500 * time.Millisecond, ForecastUnchanged: u})
		}
		c.at(at, Event{Kind: EventDone, Candidate: b.name, Done: k + 1})
	}
	return c
}

// TestETA_NoisyStart: the first four benchmarks of a noisy job ran to the
// cap and forecast it for one that changes nothing; the five to come are
// still expected to hold clear changes, which settle at their first
// claim whatever the machine's noise. Each draws 8 pairs one time in 5
// (the first claim's 2 in the prior's 6 and the four finished benchmarks'
// 4), so the median draw holds one 8 and four 30s: 128 pairs of 1 s and
// five set-ups of 1 s. With the unchanged forecast alone as the prior,
// the ETA said 5 × 31 = 155 s, where on go-humanize three of five such
// benchmarks settled at 8 (docs/speed.md's eleventh pass).
func TestETA_NoisyStart(t *testing.T) {
	c := newETAClock(t, &ETA{Slots: 1, MinPairs: 6, MaxPairs: 30, FirstClaim: 8})
	names := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"}
	c.at(0, Event{Kind: EventJobStart, Total: len(names)}, Event{Kind: EventPhase, Phase: "behavior"})
	for _, n := range names {
		c.at(0, Event{Kind: EventStart, Phase: "behavior", Candidate: n}, Event{Kind: EventTested, Candidate: n})
	}
	c.at(0, Event{Kind: EventPhase, Phase: "benchmark"})
	at := 0.0
	for k, n := range names[:4] {
		c.at(at, Event{Kind: EventStart, Phase: "benchmark", Candidate: n})
		at++ // a second of set-up, then a pair a second
		for i := 1; i <= 30; i++ {
			at++
			c.at(at, Event{Kind: EventSample, Candidate: n, BaseSample: 500 * time.Millisecond, Forecast: 30, ForecastUnchanged: 30})
		}
		c.at(at, Event{Kind: EventDone, Candidate: n, Done: k + 1})
	}
	c.want("after four at the cap", 133*time.Second, 155*time.Second, false)
}

// TestETA_History: the earlier jobs' pairs (the job-start event's History)
// count, at their mean, as up to historyWeight (2) more finished
// benchmarks beside the prior's (priorWeight of each of three kinds); a
// history of one as one. A candidate's own earlier pairs, under its name,
// are averaged with ownWeight (2) more at that. Checked at d's start,
// before its first pair, where it is expected the mean (not a draw's
// median).
func TestETA_History(t *testing.T) {
	for _, tt := range []struct {
		history []PastBenchmark
		left    time.Duration
	}{
		// (130 + 2 × 23) / 11 = 16 pairs, where 130 is what
		// TestETA_PriorMedian's 9 weigh, and 1 s of set-up.
		{pastOf("a", 24, "b", 22, "a", 24, "b", 22, "c", 24, "c", 22), 17 * time.Second},
		// (130 + 20) / 10 = 15 pairs.
		{pastOf("x", 20), 16 * time.Second},
		{nil, 15*time.Second + 4*time.Second/9},
		// Any benchmark to come: (130 + 22 + 24) / 11 = 16 pairs; d's own,
		// (24 + 24 + 2 × 16) / 4 = 20; a took what it took before.
		{pastOf("a", 22, "d", 24, "a", 22, "d", 24), 21 * time.Second},
	} {
		c := threeBenched(t, tt.history)
		c.at(41, Event{Kind: EventStart, Phase: "benchmark", Candidate: "d"})
		c.want(fmt.Sprintf("at d's start, with the history %v", tt.history), tt.left, 31*time.Second, false)
	}
}

// pastOf is a history of candidate, pairs, candidate, pairs...
func pastOf(named ...any) []PastBenchmark {
	var out []PastBenchmark
	for i := 0; i < len(named); i += 2 {
		out = append(out, PastBenchmark{Candidate: named[i].(string), Pairs: named[i+1].(int)})
	}
	return out
}

// TestETA_OwnRatio: a candidate's own past pairs are scaled by what this
// job's finished benchmarks took against their own past (ownRatio, with
// ratioWeight benchmarks at the job's expectation on both sides), within
// the cap. Checked at d's start, as in TestETA_History.
func TestETA_OwnRatio(t *testing.T) {
	for _, tt := range []struct {
		history []PastBenchmark
		left    time.Duration
	}{
		// Any to come: (130 + 2 × 12) / 11 = 14 (TestETA_History). a took
		// 22 where it took 14: (22 + 2 × 14) / (14 + 2 × 14) = 50 / 42
		// times as much. d: (10 + 2 × 14) / 3 × 50 / 42 = 15 5/63 pairs,
		// and 1 s of set-up.
		{pastOf("a", 14, "d", 10), 16*time.Second + 5*time.Second/63},
		// 16 to come; a took (22 + 2 × 16) / (30 + 2 × 16) of before; d:
		// (16 + 16 + 2 × 16) / 4 × 54 / 62 = 13 29/31.
		{pastOf("a", 30, "d", 16, "a", 30, "d", 16), 14*time.Second + 29*time.Second/31},
		// d: 30.3 pairs, at the cap of 30.
		{pastOf("a", 8, "d", 30, "d", 30), 31 * time.Second},
	} {
		c := threeBenched(t, tt.history)
		c.at(41, Event{Kind: EventStart, Phase: "benchmark", Candidate: "d"})
		got, ok := c.e.Estimate(c.now)
		if !ok || (got.Left-tt.left).Abs() > time.Millisecond || got.Most != 31*time.Second {
			t.Errorf("at d's start, with the history %v: %+v (ok %v), want left %s, most 31s", tt.history, got, ok, tt.left)
		}
	}
}

// TestETA_SettledWithoutBenchmark: a candidate that passed its tests and
// was then settled without a benchmark (EventDone before its benchmark's
// start) is not expected to take one.
func TestETA_SettledWithoutBenchmark(t *testing.T) {
	c := threeBenched(t, nil, "e")
	// Each of d and e draws 8 pairs 6 times in 9, 22 once and 30 twice
	// (TestETA_PriorMedian): both draw 8 four times in 9, and the median
	// draw is 8 and 22 (30 pairs), each after 1 s of set-up.
	c.want("after c, d and e to come", 32*time.Second, 62*time.Second, false)
	c.at(41, Event{Kind: EventDone, Candidate: "e", Done: 4})
	c.want("e settled", 9*time.Second, 31*time.Second, false)
}

// TestETA_ReusedPairs: a benchmark that goes on from an earlier job's pairs
// (watch refining its quick look, whose 13 pairs the result cache gives
// back) has those behind it: its forecast and the cap count them
// (Event.Pair), its pace only the pairs measured now.
func TestETA_ReusedPairs(t *testing.T) {
	c := newETAClock(t, &ETA{Slots: 1, MinPairs: 6, MaxPairs: 30, FirstClaim: 8})
	c.at(0, Event{Kind: EventJobStart, Total: 1}, Event{Kind: EventPhase, Phase: "behavior"},
		Event{Kind: EventStart, Phase: "behavior", Candidate: "working-tree"}, Event{Kind: EventTested, Candidate: "working-tree"},
		Event{Kind: EventPhase, Phase: "benchmark"}, Event{Kind: EventStart, Phase: "benchmark", Candidate: "working-tree"})
	c.at(2, Event{Kind: EventSample, Candidate: "working-tree", Pair: 14, BaseSample: 500 * time.Millisecond, Forecast: 20})
	// 6 more to its forecast of 20, at two base samples of 0.5 s; at most
	// 16 more to the cap. Counted from 1, it was 19 and 29.
	c.want("its first pair in this job, the 14th", 6*time.Second, 16*time.Second, false)
	c.at(3, Event{Kind: EventSample, Candidate: "working-tree", Pair: 15, BaseSample: 500 * time.Millisecond, Forecast: 20})
	c.want("the 15th", 5*time.Second, 15*time.Second, false)
}

// TestETA_ManyToCome: past drawnUpTo benchmarks to come, the ETA is the sum
// of their means, which their median sum then nearly is.
func TestETA_ManyToCome(t *testing.T) {
	var more []string
	for i := range drawnUpTo {
		more = append(more, fmt.Sprintf("m%d", i))
	}
	c := threeBenched(t, nil, more...)
	// d and the 32 more: each 1 s of set-up and the mean's 14 4/9 pairs
	// (TestETA_PriorMedian), not the 8 of a median draw.
	n := time.Duration(drawnUpTo + 1)
	c.want("after c", n*(15*time.Second+4*time.Second/9), n*31*time.Second, false)
}

// TestMedianLeft: the benchmarks to come take the median of their drawn
// sums, not the mean: with most benchmarks at 8 pairs and a quarter at
// 30, one to come is 8 (the mean is 13.5), ten are 124, 80 and two at
// 30, the median of Binomial(10, 1/4) (the mean is 135); an untested
// candidate counts when it passes, at the rate given.
func TestMedianLeft(t *testing.T) {
	bimodal := newUrn([]atom{{8, 3}, {30, 1}})
	seconds := func(p float64) time.Duration { return time.Duration(p * float64(time.Second)) }
	for _, tt := range []struct {
		what     string
		toCome   int
		untested int
		rate     float64
		want     time.Duration
	}{
		{"nothing to come", 0, 0, 0, 0},
		{"one", 1, 0, 0, 8 * time.Second},
		{"ten", 10, 0, 0, 124 * time.Second},
		{"four untested, half of them passing", 0, 4, 0.5, 2 * 8 * time.Second},
		{"untested, none passing so far", 0, 4, 0, 0},
	} {
		toDraw := make([]urn, tt.toCome)
		for i := range toDraw {
			toDraw[i] = bimodal
		}
		pool := newUrn([]atom{{8, 1}})
		if got := medianLeft(toDraw, tt.untested, tt.rate, pool, seconds); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.what, got, tt.want)
		}
	}
}

// TestETA_RecentPace: the pairs to come run at the pace of base's latest
// samples, not of the whole job's: the load of a shared machine moves.
func TestETA_RecentPace(t *testing.T) {
	c := newETAClock(t, &ETA{Slots: 1, MinPairs: 2, MaxPairs: 20})
	c.at(0, Event{Kind: EventJobStart, Total: 2}, Event{Kind: EventPhase, Phase: "behavior"})
	for _, n := range []string{"a", "b"} {
		c.at(0, Event{Kind: EventStart, Phase: "behavior", Candidate: n}, Event{Kind: EventTested, Candidate: n})
	}
	c.at(0, Event{Kind: EventPhase, Phase: "benchmark"}, Event{Kind: EventStart, Phase: "benchmark", Candidate: "a"})
	// a: a set-up of 1.5 s, then 10 pairs with 1 s base samples and 10
	// with 0.25 s.
	s := 3.5
	for i := range 20 {
		bs := time.Second
		if i >= 10 {
			bs = 250 * time.Millisecond
		}
		c.at(s, Event{Kind: EventSample, Candidate: "a", BaseSample: bs})
		s += 2 * bs.Seconds()
	}
	c.at(s, Event{Kind: EventDone, Candidate: "a", Done: 1})
	// b: a set-up of (1.5 s − 1.5 s) / 2 = 0 and pairs of two of the
	// latest 0.25 s samples, not of the job's mean 0.625 s: in the median
	// draw the prior's 6 (four of the five weights; the middle of the
	// first claim's 2 and the cap's 20, as a gave no unchanged forecast),
	// at most the cap.
	c.want("after a", 3*time.Second, 10*time.Second, false)
}

// TestETA_Stuck: a candidate with a stuck test (EventStuck) is predicted to
// run to --timeout, not by the Lindy rule; once the test ends (an
// EventStuck with no test), by the rule again.
func TestETA_Stuck(t *testing.T) {
	c := newETAClock(t, &ETA{Slots: 2, Timeout: 15 * time.Second, NoBench: true})
	c.at(0, Event{Kind: EventJobStart, Total: 2}, Event{Kind: EventPhase, Phase: "behavior"})
	c.at(2, Event{Kind: EventBaseline, Message: "baseline tests: 8 passed"},
		Event{Kind: EventStart, Phase: "behavior", Candidate: "ok"}, Event{Kind: EventStart, Phase: "behavior", Candidate: "hang"})
	c.at(4, Event{Kind: EventTested, Candidate: "ok"})
	// hang has run base's 2 s: as long again, at most to its timeout and
	// the slack past it.
	c.want("at base's time", 2*time.Second, 14*time.Second, false)
	c.at(5, Event{Kind: EventStuck, Candidate: "hang", Message: "p.TestLoop/n=3", AtBase: 10 * time.Millisecond})
	// To its timeout: 12.2 s with the 0.2 s a run ends after it
	// (timeoutLate), at most 13 s (timeoutSlack).
	c.want("stuck", 12200*time.Millisecond, 13*time.Second, false)
	c.at(6, Event{Kind: EventStuck, Candidate: "hang"})
	c.want("slow, not stuck", 4*time.Second, 12*time.Second, false)
}

// TestStuckTest: a running test is stuck past 10 times its time at base and
// a second beyond it; of a stuck subtest and its parent, the subtest; a test
// base did not run is never stuck.
func TestStuckTest(t *testing.T) {
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	ago := func(s float64) time.Time { return now.Add(-time.Duration(s * float64(time.Second))) }
	times := map[string]float64{"p.TestA": 0.01, "p.TestA/sub": 0.001, "p.TestB": 0.5, "p.TestC": 2}
	for _, tt := range []struct {
		name    string
		running []gotest.Running
		want    string // "" for none
	}{
		{"JustPastGrace", []gotest.Running{{Key: "p.TestB", Since: ago(5.1)}}, "p.TestB"},
		{"UnderRatio", []gotest.Running{{Key: "p.TestC", Since: ago(19)}}, ""},
		{"UnderGrace", []gotest.Running{{Key: "p.TestA", Since: ago(0.9)}}, ""},
		{"Innermost", []gotest.Running{{Key: "p.TestA", Since: ago(3)}, {Key: "p.TestA/sub", Since: ago(2.9)}}, "p.TestA/sub"},
		{"New", []gotest.Running{{Key: "p.TestNew", Since: ago(60)}}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, _, ok := stuckTest(tt.running, times, now)
			if got := map[bool]string{true: r.Key}[ok]; got != tt.want {
				t.Errorf("stuck = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestETA_Prior: before the first pair, phase 2 is predicted from what is
// known before it: a pair at two calibrated samples, the first set-up at
// base's test time and base's calibration, later set-ups at half base's
// test time.
func TestETA_Prior(t *testing.T) {
	c := newETAClock(t, &ETA{Slots: 1, MinPairs: 4, MaxPairs: 10, Sample: 300 * time.Millisecond})
	c.at(0, Event{Kind: EventJobStart, Total: 2}, Event{Kind: EventPhase, Phase: "behavior"})
	c.at(0, Event{Kind: EventStart, Phase: "behavior", Candidate: "a"}, Event{Kind: EventStart, Phase: "behavior", Candidate: "b"})
	c.at(2, Event{Kind: EventBaseline, Message: "baseline tests: 8 passed"},
		Event{Kind: EventTested, Candidate: "a"}, Event{Kind: EventTested, Candidate: "b"})
	// Every candidate tested, phase 2 not started: the first set-up, of
	// the tests' 2 s + 1.5 × 0.3 s, b's of 1 s, and a's and b's pairs
	// drawn from the three kinds of candidate's (below), whose sum's
	// median is 14 pairs of 0.6 s.
	c.want("between the phases", (2450+1000+8400)*time.Millisecond, (2450+6000+1000+6000)*time.Millisecond, false)
	c.at(2, Event{Kind: EventPhase, Phase: "benchmark"}, Event{Kind: EventStart, Phase: "benchmark", Candidate: "a"})
	c.at(3)
	// a: 1.45 s left of a set-up of the tests' 2 s + 1.5 × 0.3 s, then
	// pairs of 0.6 s, the mean of the three kinds of candidate's: the
	// first claim's 4, the cap's 10 and their geometric middle, 6, for
	// one that changes nothing: 6⅔ pairs, 4 s; b: a set-up of 1 s and
	// the median draw's 6 pairs. At most 10 pairs each.
	c.want("a's set-up", (1450+4000+1000+3600)*time.Millisecond, (1450+6000+1000+6000)*time.Millisecond, false)
	// Without a calibrated sample (a --bench command): none.
	c.e.Sample = 0
	if got, ok := c.e.Estimate(c.now); ok {
		t.Errorf("a --bench command's set-up: %+v, want none", got)
	}
}

// TestETA_PassesOverBase: once a candidate has passed, its test time is
// the reference, though base's (the job's first run, beside the first
// builds) was longer.
func TestETA_PassesOverBase(t *testing.T) {
	c := newETAClock(t, &ETA{Slots: 1, NoBench: true})
	c.at(0, Event{Kind: EventJobStart, Total: 3}, Event{Kind: EventPhase, Phase: "behavior"},
		Event{Kind: EventStart, Phase: "behavior", Candidate: "a"})
	c.at(5, Event{Kind: EventTested, Candidate: "a"}, Event{Kind: EventStart, Phase: "behavior", Candidate: "b"})
	c.at(8, Event{Kind: EventBaseline, Message: "baseline tests: 8 passed"})
	// b has 2 s left of a's 5 s, c takes 5 s; not base's 8 s.
	c.want("a passed", 7*time.Second, 7*time.Second, false)
}

// TestNewETA: the ETA has the limits the job will have, defaults filled in
// where the options leave them out; without them it expected no pair of
// a benchmark to come and no end to a test.
func TestNewETA(t *testing.T) {
	e := NewETA(Options{Parallel: 2})
	if e.Slots != 2 || e.MinPairs != DefaultMinPairs || e.MaxPairs != DefaultMaxPairs || e.Timeout != DefaultTimeout || e.Budget != DefaultBudget {
		t.Errorf("NewETA of default options: %d slots, pairs %d-%d, timeout %s, budget %s; want 2, %d-%d, %s, %s",
			e.Slots, e.MinPairs, e.MaxPairs, e.Timeout, e.Budget, DefaultMinPairs, DefaultMaxPairs, DefaultTimeout, DefaultBudget)
	}
	if e := NewETA(Options{Parallel: 1, MaxPairs: 12, Budget: time.Minute}); e.MaxPairs != 12 || e.Budget != time.Minute {
		t.Errorf("NewETA with a cap of 12 and a 1m budget: %d, %s", e.MaxPairs, e.Budget)
	}
}

// TestETA_OwnZeroLimits: an ETA made without NewETA, its limits left at
// 0, gives a finite estimate with a candidate's own history of no pairs
// (as a client of the API may send it): no pairs to scale by is no ratio,
// not 0/0.
func TestETA_OwnZeroLimits(t *testing.T) {
	c := newETAClock(t, &ETA{Slots: 1})
	c.at(0, Event{Kind: EventJobStart, Total: 2, History: pastOf("a", 0, "b", 0)}, Event{Kind: EventPhase, Phase: "behavior"})
	for _, n := range []string{"a", "b"} {
		c.at(0, Event{Kind: EventStart, Phase: "behavior", Candidate: n}, Event{Kind: EventTested, Candidate: n})
	}
	c.at(0, Event{Kind: EventPhase, Phase: "benchmark"}, Event{Kind: EventStart, Phase: "benchmark", Candidate: "a"})
	c.at(1, Event{Kind: EventSample, Candidate: "a", BaseSample: 500 * time.Millisecond})
	got, ok := c.e.Estimate(c.now)
	if !ok || got.Left < 0 || got.Left > time.Hour || got.Most < got.Left {
		t.Errorf("with no limits: %+v (ok %v), want a finite estimate", got, ok)
	}
}

// BenchmarkETA_Estimate is the cost of one estimate in a large job: 200
// candidates waiting for their benchmarks, each with its own history in
// five earlier jobs (1,000 past benchmarks), the first being measured.
// A progress display asks every second and at every event.
func BenchmarkETA_Estimate(b *testing.B) {
	e := &ETA{Slots: 2, MinPairs: 6, MaxPairs: 30, FirstClaim: 8, Sample: 300 * time.Millisecond}
	start := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	var hist []PastBenchmark
	for j := range 5 {
		for i := range 200 {
			hist = append(hist, PastBenchmark{Candidate: fmt.Sprintf("c%d", i), Pairs: 8 + (i*7+j*3)%23})
		}
	}
	e.Observe(Event{Kind: EventJobStart, Total: 200, History: hist}, start)
	e.Observe(Event{Kind: EventPhase, Phase: "behavior"}, start)
	for i := range 200 {
		name := fmt.Sprintf("c%d", i)
		e.Observe(Event{Kind: EventStart, Phase: "behavior", Candidate: name}, start)
		e.Observe(Event{Kind: EventTested, Candidate: name}, start.Add(time.Second))
	}
	e.Observe(Event{Kind: EventPhase, Phase: "benchmark"}, start.Add(time.Second))
	e.Observe(Event{Kind: EventStart, Phase: "benchmark", Candidate: "c0"}, start.Add(time.Second))
	e.Observe(Event{Kind: EventSample, Candidate: "c0", BaseSample: 300 * time.Millisecond, Forecast: 10, ForecastUnchanged: 12}, start.Add(2*time.Second))
	now := start.Add(3 * time.Second)
	for b.Loop() {
		if _, ok := e.Estimate(now); !ok {
			b.Fatal("no estimate")
		}
	}
}
