package progress

import (
	"github.com/optimizer-dev/optimizer/eta"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/result"
)

func TestTracker_Line(t *testing.T) {
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	tr := NewTracker(clock, nil)
	ci := [2]float64{1.0475, 4.3} // its low bound rounds to the threshold, 1.05×
	for _, tt := range []struct {
		after time.Duration // since the job started
		e     result.Event
		want  string
	}{
		{0, result.Event{Kind: result.EventJobStart, Total: 4, Message: "job1", MinSpeedup: 0.05}, "job job1: 4 candidates"},
		{0, result.Event{Kind: result.EventPhase, Phase: "behavior"}, "phase: behavior"},
		{0, result.Event{Kind: result.EventStart, Phase: "behavior", Candidate: "a"}, ""},
		{2 * time.Second, result.Event{Kind: result.EventDone, Candidate: "broken", Done: 1, Total: 4, Result: &result.CandidateResult{
			Verdict: result.VerdictFailed, Seconds: 1.2, Failure: &result.Failure{Kind: result.FailTest, Tests: []string{"TestX"}},
		}}, "[1/4] broken: failed (test: TestX) 1.2s, ETA 6.0s"},
		{2 * time.Second, result.Event{Kind: result.EventDone, Candidate: "dup", Done: 2, Total: 4, Result: &result.CandidateResult{
			Verdict: result.VerdictDuplicate, DuplicateOf: "fast",
		}}, "[2/4] dup: duplicate of fast, ETA 2.0s"},
		{3 * time.Second, result.Event{Kind: result.EventPhase, Phase: "benchmark"}, "phase: benchmark"},
		{3 * time.Second, result.Event{Kind: result.EventScope, Message: "measures each of 2 candidates on the benchmarks that execute a function it changes"},
			"[2/4] measures each of 2 candidates on the benchmarks that execute a function it changes"},
		{3 * time.Second, result.Event{Kind: result.EventStart, Phase: "benchmark", Candidate: "fast"}, "[2/4] fast: benchmark"},
		{3 * time.Second, result.Event{Kind: result.EventScope, Candidate: "fast", Message: "measures 2 of 30 benchmarks (BenchmarkA, BenchmarkB)"},
			"[2/4] fast: measures 2 of 30 benchmarks (BenchmarkA, BenchmarkB)"},
		{3 * time.Second, result.Event{Kind: result.EventSample, Candidate: "fast"}, ""},
		{3 * time.Second, result.Event{Kind: result.EventWarning, Message: "noisy"}, "warning: noisy"},
		{12 * time.Second, result.Event{Kind: result.EventDone, Candidate: "fast", Done: 3, Total: 4, Result: &result.CandidateResult{
			Verdict: result.VerdictFaster, Speedup: 4.1, CI: &ci, Seconds: 9,
		}}, "[3/4] fast: faster 4.10× [1.048×, 4.30×] 9.0s, ETA 4.0s"},
		{20 * time.Second, result.Event{Kind: result.EventDone, Candidate: "ok", Done: 4, Total: 4, Result: &result.CandidateResult{
			Verdict: result.VerdictPassed, TestsPassed: 7, TestsTotal: 7, Seconds: 65,
		}}, "[4/4] ok: passed (tests 7/7) 1m05s"},
	} {
		now = time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC).Add(tt.after)
		if got := tr.Line(tt.e); got != tt.want {
			t.Errorf("line(%s %s) = %q, want %q", tt.e.Kind, tt.e.Candidate, got, tt.want)
		}
	}
	if got := tr.Status(); !strings.HasPrefix(got, "benchmark fast (1 samples)") {
		t.Errorf("status = %q", got)
	}
}

// TestTracker_Waiting: a wait for the machine shows on a line and in the
// status until it ends; a benchmark's wait shows beside its time.
func TestTracker_Waiting(t *testing.T) {
	tr := NewTracker(time.Now, nil)
	tr.Line(result.Event{Kind: result.EventJobStart, Total: 2, Message: "job1"})
	tr.Line(result.Event{Kind: result.EventPhase, Phase: "benchmark"})
	tr.Line(result.Event{Kind: result.EventStart, Phase: "benchmark", Candidate: "fast"})
	msg := "waiting for the machine: optimizer pid 12 is benchmarking /src/r, since 12:03"
	if got, want := tr.Line(result.Event{Kind: result.EventWaiting, Message: msg}), "[0/2] "+msg; got != want {
		t.Errorf("line = %q, want %q", got, want)
	}
	if got := tr.Status(); got != msg {
		t.Errorf("status while waiting = %q, want %q", got, msg)
	}
	if got := tr.Line(result.Event{Kind: result.EventWaiting}); got != "the machine is free" {
		t.Errorf("line at the end of the wait = %q", got)
	}
	if got := tr.Status(); got != "benchmark fast (0 samples)" {
		t.Errorf("status after the wait = %q", got)
	}
}

// TestTracker_ETA: the line shows package eta's estimate. The most that can
// be left is shown beside it when that is over 1.5 times more. "tests ETA"
// is shown while only the tests' time is known.
func TestTracker_ETA(t *testing.T) {
	c := newClock(&eta.ETA{Slots: 2, Budget: 20 * time.Second, MaxPairs: 10, Timeout: time.Minute})
	tr, at := c.tr, c.at
	failed := &result.CandidateResult{Verdict: result.VerdictFailed}
	at(0, result.Event{Kind: result.EventJobStart, Total: 3, Message: "job1"})
	at(0, result.Event{Kind: result.EventPhase, Phase: "behavior"})
	at(0, result.Event{Kind: result.EventStart, Phase: "behavior", Candidate: "a"})
	at(0, result.Event{Kind: result.EventStart, Phase: "behavior", Candidate: "b"})
	// Candidate b has run as long as a took, so it takes as long again,
	// 2 s. Candidate c is queued at 2 s. At most, b runs up to its timeout
	// and the slack past it (evaluator's timeoutSlack, 1 s).
	if got := at(2, result.Event{Kind: result.EventDone, Candidate: "a", Done: 1, Result: failed}); !strings.HasSuffix(got, ", tests ETA 2.0s, up to 59s") {
		t.Errorf("after a: %q, want the tests' 2.0s left, up to 59s", got)
	}
	at(3, result.Event{Kind: result.EventTested, Candidate: "b"})
	at(3, result.Event{Kind: result.EventStart, Phase: "behavior", Candidate: "c"})
	at(4, result.Event{Kind: result.EventTested, Candidate: "c"})
	at(4, result.Event{Kind: result.EventPhase, Phase: "benchmark"})
	at(4, result.Event{Kind: result.EventStart, Phase: "benchmark", Candidate: "b"})
	at(5, result.Event{Kind: result.EventSample, Candidate: "b", BaseSample: 500 * time.Millisecond})
	at(6, result.Event{Kind: result.EventSample, Candidate: "b", BaseSample: 500 * time.Millisecond})
	// c to come: no set-up, since b's first pair ended 1 s after its start,
	// two base samples. Then 2 pairs (b's 2 averaged with four at its
	// unchanged forecast, 2) at two base samples: 2.0 s; up to 10 pairs, 10 s.
	if got := at(7, result.Event{Kind: result.EventDone, Candidate: "b", Done: 2, Result: failed}); got != "[2/3] b: failed, ETA 2.0s, up to 10s" {
		t.Errorf("after b: %q, want c's 2.0s, up to 10s", got)
	}
	tr.ETA = nil // no estimator: the average per finished candidate
	if got := tr.eta(); got != ", ETA 3.5s" {
		t.Errorf("without an estimator: %q, want 3.5s", got)
	}
}

// TestLines: one line per event that has one, nothing for the rest.
func TestLines(t *testing.T) {
	events := make(chan result.Event, 4)
	events <- result.Event{Kind: result.EventJobStart, Total: 1, Message: "job1"}
	events <- result.Event{Kind: result.EventStart, Phase: "behavior", Candidate: "a"}
	events <- result.Event{Kind: result.EventDone, Candidate: "a", Done: 1, Total: 1, Result: &result.CandidateResult{Verdict: result.VerdictFailed}}
	close(events)
	var b strings.Builder
	Lines(events, &b, nil)
	if got, want := b.String(), "job job1: 1 candidates\n[1/1] a: failed\n"; got != want {
		t.Errorf("Lines wrote %q, want %q", got, want)
	}
}

// TestTracker_Refresh: with nothing printed for a while, a plain line is
// refreshed at the heartbeat. It is also refreshed when the ETA on screen,
// counted down since, is off the estimate now (a test running long). It is
// never refreshed sooner than refreshAfter after a line, nor without an
// estimate.
func TestTracker_Refresh(t *testing.T) {
	c := newClock(&eta.ETA{Slots: 1, Timeout: time.Minute, MaxPairs: 10})
	tr, at, refresh := c.tr, c.at, c.refresh
	failed := &result.CandidateResult{Verdict: result.VerdictFailed}
	at(0, result.Event{Kind: result.EventJobStart, Total: 3, Message: "job1"},
		result.Event{Kind: result.EventPhase, Phase: "behavior"},
		result.Event{Kind: result.EventStart, Phase: "behavior", Candidate: "a"})
	if got := refresh(1.5); got != "" {
		t.Errorf("with no estimate yet: %q, want none", got)
	}
	// The baseline line gives the first ETA: a has run base's 1.5 s, so as
	// long again, and b and c 1.5 s each. At most, a runs to its
	// one-minute timeout and b and c take a minute each.
	if got, want := tr.Line(result.Event{Kind: result.EventBaseline, Message: "baseline tests: 1 passed"}),
		"baseline: baseline tests: 1 passed, tests ETA 4.5s, up to 2m59s"; got != want {
		t.Errorf("baseline line: %q, want %q", got, want)
	}
	if got := refresh(2.5); got != "" {
		t.Errorf("a second after a line whose ETA has not run out: %q, want none", got)
	}
	// a failed at 3 s, saying b and c have base's 1.5 s each left.
	at(3, result.Event{Kind: result.EventDone, Candidate: "a", Done: 1, Result: failed},
		result.Event{Kind: result.EventStart, Phase: "behavior", Candidate: "b"})
	if got := refresh(5.5); got != "" {
		t.Errorf("2.5 s after a line: %q, want none", got)
	}
	// b runs on: as long again as it has run, and c; the 3 s on screen
	// since a's line is down to 0.
	if got, want := refresh(9), "[1/3] testing b (6.0s), tests ETA 7.5s, up to 1m54s"; got != want {
		t.Errorf("b past base's time: %q, want %q", got, want)
	}
	if got, want := refresh(15), "[1/3] testing b (12s), tests ETA 14s, up to 1m48s"; got != want {
		t.Errorf("b still running: %q, want %q", got, want)
	}

	// With the ETA on screen on track, only the heartbeat.
	c.tr = NewTracker(func() time.Time { return c.now }, &eta.ETA{Slots: 1, NoBench: true})
	at(0, result.Event{Kind: result.EventJobStart, Total: 3, Message: "job1"},
		result.Event{Kind: result.EventPhase, Phase: "behavior"},
		result.Event{Kind: result.EventStart, Phase: "behavior", Candidate: "a"})
	at(60, result.Event{Kind: result.EventBaseline, Message: "baseline tests: 1 passed"},
		result.Event{Kind: result.EventDone, Candidate: "a", Done: 1, Result: failed},
		result.Event{Kind: result.EventStart, Phase: "behavior", Candidate: "b"})
	if got := refresh(70); got != "" {
		t.Errorf("on track: %q, want none", got)
	}
	if got, want := refresh(91), "[1/3] testing b (31s), ETA 1m29s"; got != want {
		t.Errorf("heartbeat: %q, want %q", got, want)
	}
	c.tr.ETA = nil
	if got := refresh(200); got != "" {
		t.Errorf("with no estimator: %q, want none", got)
	}
}

// TestTracker_Stuck: a stuck test gets a line naming it, with the ETA that
// takes its candidate to the timeout, and the refreshed lines name it
// until the test ends.
func TestTracker_Stuck(t *testing.T) {
	c := newClock(&eta.ETA{Slots: 1, Timeout: 15 * time.Second, NoBench: true})
	tr, start, at := c.tr, c.start, c.at
	at(0, result.Event{Kind: result.EventJobStart, Total: 1, Message: "job1"})
	at(0, result.Event{Kind: result.EventPhase, Phase: "behavior"})
	at(2, result.Event{Kind: result.EventBaseline, Message: "baseline tests: 8 passed"})
	at(2, result.Event{Kind: result.EventStart, Phase: "behavior", Candidate: "hang"})
	got := at(4.5, result.Event{Kind: result.EventStuck, Candidate: "hang", Message: "example.com/demo/sumsq.TestSum/n=3",
		Since: start.Add(3 * time.Second), AtBase: 2 * time.Millisecond})
	if want := "[0/1] hang: sumsq.TestSum/n=3 looks stuck (running 1.5s, under 10ms at base), ETA 13s"; got != want {
		t.Errorf("stuck line: %q, want %q", got, want)
	}
	c.now = start.Add(40 * time.Second)
	if got, want := tr.activity(), "[0/1] testing hang (38s, stuck in sumsq.TestSum/n=3)"; got != want {
		t.Errorf("activity: %q, want %q", got, want)
	}
	at(41, result.Event{Kind: result.EventStuck, Candidate: "hang"})
	if got, want := tr.activity(), "[0/1] testing hang (39s)"; got != want {
		t.Errorf("activity after the test ended: %q, want %q", got, want)
	}
}

// TestTracker_RanOut: when the ETA of an event's line has run out while the
// work goes on, one refresh comes a tick later rather than refreshAfter
// later. Then refreshAfter passes between lines again.
func TestTracker_RanOut(t *testing.T) {
	c := newClock(&eta.ETA{Slots: 1, NoBench: true})
	at, refresh := c.at, c.refresh
	failed := &result.CandidateResult{Verdict: result.VerdictFailed}
	at(0, result.Event{Kind: result.EventJobStart, Total: 2, Message: "job1"},
		result.Event{Kind: result.EventPhase, Phase: "behavior"},
		result.Event{Kind: result.EventStart, Phase: "behavior", Candidate: "a"})
	// a fails at base's 1 s: b, started then, has 1 s left, on screen.
	at(1, result.Event{Kind: result.EventBaseline, Message: "baseline tests: 1 passed"},
		result.Event{Kind: result.EventDone, Candidate: "a", Done: 1, Result: failed},
		result.Event{Kind: result.EventStart, Phase: "behavior", Candidate: "b"})
	if got := refresh(1.5); got != "" {
		t.Errorf("with the ETA on screen on track: %q, want none", got)
	}
	if got, want := refresh(2), "[1/2] testing b (1.0s), ETA 1.0s"; got != want {
		t.Errorf("the ETA on screen ran out: %q, want %q", got, want)
	}
	if got := refresh(3); got != "" {
		t.Errorf("a refresh's ETA ran out, a second later: %q, want none", got)
	}
	if got, want := refresh(5), "[1/2] testing b (4.0s), ETA 4.0s"; got != want {
		t.Errorf("refreshAfter later: %q, want %q", got, want)
	}
}

// TestTracker_FirstBenchmark: the job's first benchmark's line has the ETA
// from what is known before any pair; a later one's has none (the verdict
// line before it has it).
func TestTracker_FirstBenchmark(t *testing.T) {
	c := newClock(&eta.ETA{Slots: 1, MinPairs: 4, MaxPairs: 10, Sample: 300 * time.Millisecond})
	at := c.at
	at(0, result.Event{Kind: result.EventJobStart, Total: 1, Message: "job1"})
	at(0, result.Event{Kind: result.EventPhase, Phase: "behavior"})
	at(0, result.Event{Kind: result.EventStart, Phase: "behavior", Candidate: "a"})
	at(2, result.Event{Kind: result.EventBaseline, Message: "baseline tests: 1 passed"})
	at(2, result.Event{Kind: result.EventTested, Candidate: "a"})
	at(2, result.Event{Kind: result.EventPhase, Phase: "benchmark"})
	// A set-up of base's 2 s, then 6 pairs (the geometric middle of 4 and
	// 10) of two 300 ms samples: 5.6 s.
	if got, want := at(2, result.Event{Kind: result.EventStart, Phase: "benchmark", Candidate: "a"}), "[0/1] a: benchmark, ETA 5.6s"; got != want {
		t.Errorf("first benchmark: %q, want %q", got, want)
	}
}

// clock drives a tracker on a clock of its own, from start.
type clock struct {
	tr         *Tracker
	start, now time.Time
}

func newClock(est *eta.ETA) *clock {
	c := &clock{start: time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)}
	c.now = c.start
	c.tr = NewTracker(func() time.Time { return c.now }, est)
	return c
}

// at shows evs s seconds after start and returns the last one's line.
func (c *clock) at(s float64, evs ...result.Event) string {
	c.now = c.start.Add(time.Duration(s * float64(time.Second)))
	line := ""
	for _, e := range evs {
		line = c.tr.Line(e)
	}
	return line
}

// refresh asks the tracker for a refreshed line s seconds after start.
func (c *clock) refresh(s float64) string {
	c.now = c.start.Add(time.Duration(s * float64(time.Second)))
	return c.tr.Refresh()
}

// TestTracker_Live: the activity for a bar or a status line carries the
// ETA now, counted down as time passes with no event; a wait for the
// machine carries none.
func TestTracker_Live(t *testing.T) {
	c := newClock(&eta.ETA{Slots: 1, NoBench: true})
	at := c.at
	at(0, result.Event{Kind: result.EventJobStart, Total: 2, Message: "job1"},
		result.Event{Kind: result.EventPhase, Phase: "behavior"},
		result.Event{Kind: result.EventBaseline, Message: "baseline tests (cached): 1 passed", AtBase: 4 * time.Second},
		result.Event{Kind: result.EventStart, Phase: "behavior", Candidate: "a"})
	// a has base's 4 s to run, b is queued at 4 s.
	if got, want := c.tr.Live(), "testing, ETA 8.0s"; got != want {
		t.Errorf("at the start: %q, want %q", got, want)
	}
	c.now = c.start.Add(3 * time.Second)
	if got, want := c.tr.Live(), "testing, ETA 5.0s"; got != want {
		t.Errorf("3 s later, no event: %q, want %q", got, want)
	}
	at(3, result.Event{Kind: result.EventWaiting, Message: "waiting for the machine: optimizer pid 7"})
	if got, want := c.tr.Live(), "waiting for the machine: optimizer pid 7"; got != want {
		t.Errorf("waiting: %q, want %q", got, want)
	}
	c.tr.ETA = nil
	at(4, result.Event{Kind: result.EventWaiting})
	if got, want := c.tr.Live(), "testing"; got != want {
		t.Errorf("no estimator, nothing finished: %q, want %q", got, want)
	}
	at(5, result.Event{Kind: result.EventTested, Candidate: "a"}, result.Event{Kind: result.EventStart, Phase: "behavior", Candidate: "b"})
	if got, want := c.tr.Live(), "testing"; got != want {
		t.Errorf("b's tests running: %q, want %q", got, want)
	}
	at(6, result.Event{Kind: result.EventTested, Candidate: "b"})
	if got, want := c.tr.Live(), "tests done"; got != want {
		t.Errorf("every candidate tested, the benchmarks not started: %q, want %q", got, want)
	}
	// A refinement's first pair is its quick look's 14th: the count says
	// so (Event.Pair).
	at(7, result.Event{Kind: result.EventPhase, Phase: "benchmark"}, result.Event{Kind: result.EventStart, Phase: "benchmark", Candidate: "a"},
		result.Event{Kind: result.EventSample, Candidate: "a", Pair: 14})
	if got, want := c.tr.Status(), "benchmark a (14 samples)"; got != want {
		t.Errorf("a refinement's first pair: %q, want %q", got, want)
	}
	// A candidate settled without tests of its own (a duplicate) is done.
	c2 := newClock(nil)
	c2.at(0, result.Event{Kind: result.EventJobStart, Total: 2, Message: "job2"},
		result.Event{Kind: result.EventPhase, Phase: "behavior"},
		result.Event{Kind: result.EventDone, Candidate: "dup", Done: 1, Result: &result.CandidateResult{Verdict: result.VerdictDuplicate}},
		result.Event{Kind: result.EventStart, Phase: "behavior", Candidate: "a"})
	activity := func() string { return strings.SplitN(c2.tr.Live(), ",", 2)[0] } // without the ETA
	if got, want := activity(), "testing"; got != want {
		t.Errorf("a duplicate settled, a's tests running: %q, want %q", got, want)
	}
	c2.at(1, result.Event{Kind: result.EventTested, Candidate: "a"})
	if got, want := activity(), "tests done"; got != want {
		t.Errorf("a duplicate settled, a tested: %q, want %q", got, want)
	}
}

// TestTracker_Contributed: after phase 1, the tests that candidates add run
// on the others. The refreshed lines then name that step, its time and the
// candidates it runs on, never "testing hopt" for a candidate whose own
// tests ended minutes ago.
func TestTracker_Contributed(t *testing.T) {
	c := newClock(&eta.ETA{Slots: 2, Timeout: time.Hour, NoBench: true})
	tr, at, refresh := c.tr, c.at, c.refresh
	at(0, result.Event{Kind: result.EventJobStart, Total: 2, Message: "job1"},
		result.Event{Kind: result.EventPhase, Phase: "behavior"},
		result.Event{Kind: result.EventStart, Phase: "behavior", Candidate: "hopt"},
		result.Event{Kind: result.EventStart, Phase: "behavior", Candidate: "adds"})
	at(20, result.Event{Kind: result.EventBaseline, Message: "baseline tests: 8 passed"})
	if got, want := at(30, result.Event{Kind: result.EventPhase, Phase: result.PhaseContributed}),
		"phase: contributed-tests"; got != want {
		t.Errorf("phase line: %q, want %q", got, want)
	}
	c.now = c.start.Add(40 * time.Second)
	if got, want := tr.activity(), "[0/2] contributed tests (10s): at base"; got != want {
		t.Errorf("before any candidate's run: %q, want %q", got, want)
	}
	at(45, result.Event{Kind: result.EventStart, Phase: result.PhaseContributed, Candidate: "hopt", Message: "adds"})
	c.now = c.start.Add(775 * time.Second)
	if got, want := tr.activity(), "[0/2] contributed tests (12m25s): on hopt (12m10s)"; got != want {
		t.Errorf("activity: %q, want %q", got, want)
	}
	if got := refresh(776); !strings.HasPrefix(got, "[0/2] contributed tests (12m26s): on hopt") {
		t.Errorf("refreshed line: %q, want the contributed tests named", got)
	}
	at(780, result.Event{Kind: result.EventDone, Candidate: "hopt", Done: 1, Total: 2,
		Result: &result.CandidateResult{Verdict: result.VerdictPassed}})
	c.now = c.start.Add(781 * time.Second)
	if got, want := tr.activity(), "[1/2] contributed tests (12m31s)"; got != want {
		t.Errorf("after hopt's verdict: %q, want %q", got, want)
	}
}
