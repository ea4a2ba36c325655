package eta

import (
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/result"
)

// run feeds events to e, each at its second since the start.
type run struct {
	e     *ETA
	start time.Time
}

func newRun(e *ETA) *run { return &run{e: e, start: time.Unix(1e9, 0)} }

func (r *run) at(sec float64, evs ...result.Event) {
	for _, ev := range evs {
		r.e.Observe(ev, r.start.Add(time.Duration(sec*float64(time.Second))))
	}
}

func (r *run) est(t *testing.T, sec float64) Estimate {
	t.Helper()
	est, ok := r.e.Estimate(r.start.Add(time.Duration(sec * float64(time.Second))))
	if !ok {
		t.Fatalf("no estimate at %vs", sec)
	}
	return est
}

func ev(kind result.EventKind, phase, cand string) result.Event {
	return result.Event{Kind: kind, Phase: phase, Candidate: cand}
}

const s = time.Second

// TestETA_Tests: tests to come take base's time, spread over the slots; a
// running test past it runs as long again; a stuck one, to its timeout.
func TestETA_Tests(t *testing.T) {
	r := newRun(&ETA{Slots: 2, Timeout: 20 * s, NoBench: true})
	r.at(0, result.Event{Kind: result.EventJobStart, Total: 4},
		ev(result.EventPhase, result.PhaseBehavior, ""),
		ev(result.EventStart, result.PhaseBehavior, "a"), ev(result.EventStart, result.PhaseBehavior, "b"))
	if _, ok := r.e.Estimate(r.start.Add(s)); ok {
		t.Error("an estimate before any test time is known")
	}
	r.at(2, ev(result.EventBaseline, "", ""))
	// a and b have 0 left of base's 2 s, so as long again: 2 s each; c and
	// d queue behind them, 2 s each on two slots. At most: a and b to 18 s,
	// c and d to 20 s.
	if got, want := r.est(t, 2), (Estimate{Left: 4 * s, Most: 38 * s}); got != want {
		t.Errorf("at base's end: %+v, want %+v", got, want)
	}
	r.at(5, result.Event{Kind: result.EventStuck, Candidate: "a", Message: "TestX"})
	// a is stuck: 15 s to its timeout, which outlasts b and the queue.
	if got := r.est(t, 5); got.Left != 15*s {
		t.Errorf("with a stuck: left %v, want 15s", got.Left)
	}
	r.at(6, result.Event{Kind: result.EventDone, Candidate: "a", Done: 1})
	// Now b has run 6 s, past the 2 s: as long again; c and d 2 s each.
	if got := r.est(t, 6); got.Left != 6*s {
		t.Errorf("after a: left %v, want 6s", got.Left)
	}
}

// TestETA_Waits: time waiting for the machine counts nowhere.
func TestETA_Waits(t *testing.T) {
	r := newRun(&ETA{Slots: 1, NoBench: true})
	r.at(0, result.Event{Kind: result.EventJobStart, Total: 2},
		ev(result.EventPhase, result.PhaseBehavior, ""), ev(result.EventStart, result.PhaseBehavior, "a"))
	r.at(1, result.Event{Kind: result.EventWaiting, Message: "held by job 7"})
	r.at(31, result.Event{Kind: result.EventWaiting})
	r.at(34, ev(result.EventBaseline, "", ""))
	// Base's run took 4 s of work, not 34: a is as long again, b 4 s.
	if got := r.est(t, 34); got.Left != 8*s {
		t.Errorf("left %v, want 8s", got.Left)
	}
}

// TestETA_Benchmarks: the benchmark under way goes to its forecast, one
// to come takes the set-up and the finished one's pairs, and untested
// candidates pass at the rate seen. What a pair says comes after the
// pairs (the hack check) is added to each benchmark, under way or to come.
func TestETA_Benchmarks(t *testing.T) {
	for _, after := range []time.Duration{0, s} {
		t.Run(after.String(), func(t *testing.T) { testBenchmarks(t, after) })
	}
}

func testBenchmarks(t *testing.T, after time.Duration) {
	r := newRun(&ETA{Slots: 1, MinPairs: 4, MaxPairs: 16})
	r.at(0, result.Event{Kind: result.EventJobStart, Total: 4},
		ev(result.EventPhase, result.PhaseBehavior, ""), ev(result.EventStart, result.PhaseBehavior, "a"))
	r.at(2, ev(result.EventBaseline, "", ""), ev(result.EventTested, "", "a"),
		ev(result.EventStart, result.PhaseBehavior, "b"))
	r.at(4, result.Event{Kind: result.EventDone, Candidate: "b", Done: 1},
		ev(result.EventStart, result.PhaseBehavior, "c"))
	est := r.est(t, 4)
	if !est.Tests {
		t.Errorf("before any pair, with no calibrated sample: %+v, want the tests only", est)
	}
	r.at(6, ev(result.EventTested, "", "c"), ev(result.EventStart, result.PhaseBehavior, "d"))
	r.at(8, ev(result.EventTested, "", "d"), ev(result.EventPhase, result.PhaseBenchmark, ""),
		ev(result.EventStart, result.PhaseBenchmark, "a"))
	// a's set-up takes 3 s less two base samples of 0.5 s; pairs take 1 s.
	r.at(11, result.Event{Kind: result.EventSample, Candidate: "a", BaseSample: s / 2, After: after})
	if est := r.est(t, 11); est.Tests {
		t.Errorf("at the first pair: %+v, want the benchmarks at two base samples a pair", est)
	}
	r.at(12, result.Event{Kind: result.EventSample, Candidate: "a", BaseSample: s / 2, Forecast: 6, After: after})
	// Candidate a has 4 pairs to its forecast of 6, 4 s. Candidates c and
	// d take a set-up of 2 s and the geometric middle of 4 and 16 pairs,
	// 8 s: 10 s each. At most a goes to 16 pairs (14 s) and c and d too
	// (18 s each). Each of the three takes after on top.
	if got, want := r.est(t, 12), (Estimate{Left: 24*s + 3*after, Most: 50*s + 3*after}); got != want {
		t.Errorf("during a's benchmark: %+v, want %+v", got, want)
	}
	for i := 3; i <= 6; i++ {
		r.at(float64(9+i), result.Event{Kind: result.EventSample, Candidate: "a", BaseSample: s / 2, Forecast: 6, After: after})
	}
	r.at(15, result.Event{Kind: result.EventDone, Candidate: "a", Done: 2})
	// c and d now take a's 6 pairs after the set-up: 8 s each, and after.
	if got, want := r.est(t, 15).Left, 16*s+2*after; got != want {
		t.Errorf("after a's benchmark: left %v, want %v", got, want)
	}
}

// TestETA_Budget: no benchmark is expected past its budget.
func TestETA_Budget(t *testing.T) {
	r := newRun(&ETA{Slots: 1, MinPairs: 4, MaxPairs: 30, Budget: 10 * s, Sample: s})
	r.at(0, result.Event{Kind: result.EventJobStart, Total: 1},
		ev(result.EventPhase, result.PhaseBehavior, ""), ev(result.EventStart, result.PhaseBehavior, "a"))
	r.at(1, ev(result.EventBaseline, "", ""), ev(result.EventTested, "", "a"))
	// 1 s of set-up and 11 pairs of 2 s is past the budget: 10 s, and at
	// most 10 s.
	if got, want := r.est(t, 1), (Estimate{Left: 10 * s, Most: 10 * s}); got != want {
		t.Errorf("%+v, want %+v", got, want)
	}
}
