package main

import (
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator"
)

func TestTracker_Line(t *testing.T) {
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	tr := newTracker(clock)
	ci := [2]float64{3.9, 4.3}
	for _, tt := range []struct {
		after time.Duration // since the job started
		e     evaluator.Event
		want  string
	}{
		{0, evaluator.Event{Kind: evaluator.EventJobStart, Total: 4, Message: "job1"}, "job job1: 4 candidates"},
		{0, evaluator.Event{Kind: evaluator.EventPhase, Phase: "behavior"}, "phase: behavior"},
		{0, evaluator.Event{Kind: evaluator.EventStart, Phase: "behavior", Candidate: "a"}, ""},
		{2 * time.Second, evaluator.Event{Kind: evaluator.EventDone, Candidate: "broken", Done: 1, Total: 4, Result: &evaluator.CandidateResult{
			Verdict: evaluator.VerdictFailed, Seconds: 1.2, Failure: &evaluator.Failure{Kind: evaluator.FailTest, Tests: []string{"TestX"}},
		}}, "[1/4] broken: failed (test: TestX) 1.2s, ETA 6.0s"},
		{2 * time.Second, evaluator.Event{Kind: evaluator.EventDone, Candidate: "dup", Done: 2, Total: 4, Result: &evaluator.CandidateResult{
			Verdict: evaluator.VerdictDuplicate, DuplicateOf: "fast",
		}}, "[2/4] dup: duplicate of fast, ETA 2.0s"},
		{3 * time.Second, evaluator.Event{Kind: evaluator.EventPhase, Phase: "benchmark"}, "phase: benchmark"},
		{3 * time.Second, evaluator.Event{Kind: evaluator.EventStart, Phase: "benchmark", Candidate: "fast"}, "[2/4] fast: benchmark"},
		{3 * time.Second, evaluator.Event{Kind: evaluator.EventSample, Candidate: "fast"}, ""},
		{3 * time.Second, evaluator.Event{Kind: evaluator.EventWarning, Message: "noisy"}, "warning: noisy"},
		{12 * time.Second, evaluator.Event{Kind: evaluator.EventDone, Candidate: "fast", Done: 3, Total: 4, Result: &evaluator.CandidateResult{
			Verdict: evaluator.VerdictFaster, Speedup: 4.1, CI: &ci, Seconds: 9,
		}}, "[3/4] fast: faster 4.10× [3.90×, 4.30×] 9.0s, ETA 4.0s"},
		{20 * time.Second, evaluator.Event{Kind: evaluator.EventDone, Candidate: "ok", Done: 4, Total: 4, Result: &evaluator.CandidateResult{
			Verdict: evaluator.VerdictPassed, TestsPassed: 7, TestsTotal: 7, Seconds: 65,
		}}, "[4/4] ok: passed (tests 7/7) 1m05s"},
	} {
		now = time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC).Add(tt.after)
		if got := tr.line(tt.e); got != tt.want {
			t.Errorf("line(%s %s) = %q, want %q", tt.e.Kind, tt.e.Candidate, got, tt.want)
		}
	}
	if got := tr.status(); !strings.HasPrefix(got, "benchmark fast (1 samples)") {
		t.Errorf("status = %q", got)
	}
}

// TestTracker_Waiting: a wait for the machine shows on a line and in the
// status until it ends; a benchmark's wait shows beside its time.
func TestTracker_Waiting(t *testing.T) {
	tr := newTracker(time.Now)
	tr.line(evaluator.Event{Kind: evaluator.EventJobStart, Total: 2, Message: "job1"})
	tr.line(evaluator.Event{Kind: evaluator.EventPhase, Phase: "benchmark"})
	tr.line(evaluator.Event{Kind: evaluator.EventStart, Phase: "benchmark", Candidate: "fast"})
	msg := "waiting for the machine: optimizer pid 12 is benchmarking /src/r, since 12:03"
	if got, want := tr.line(evaluator.Event{Kind: evaluator.EventWaiting, Message: msg}), "[0/2] "+msg; got != want {
		t.Errorf("line = %q, want %q", got, want)
	}
	if got := tr.status(); got != msg {
		t.Errorf("status while waiting = %q, want %q", got, msg)
	}
	if got := tr.line(evaluator.Event{Kind: evaluator.EventWaiting}); got != "the machine is free" {
		t.Errorf("line at the end of the wait = %q", got)
	}
	if got := tr.status(); got != "benchmark fast (0 samples)" {
		t.Errorf("status after the wait = %q", got)
	}
}

// TestTracker_ETA: the ETA comes from what is left: candidates still to
// test at the test time seen, over the slots; then the current benchmark's
// pairs to the cap at its pace, within its budget, and the benchmarks to
// come at the time the finished ones took.
func TestTracker_ETA(t *testing.T) {
	start := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	now := start
	tr := newTracker(func() time.Time { return now })
	tr.est.plan = etaPlan{slots: 2, budget: 20 * time.Second, maxPairs: 10, timeout: time.Minute}
	failed := &evaluator.CandidateResult{Verdict: evaluator.VerdictFailed}
	at := func(s float64, e evaluator.Event) string {
		now = start.Add(time.Duration(s * float64(time.Second)))
		return tr.line(e)
	}
	at(0, evaluator.Event{Kind: evaluator.EventJobStart, Total: 4, Message: "job1"})
	at(0, evaluator.Event{Kind: evaluator.EventPhase, Phase: "behavior"})
	at(0, evaluator.Event{Kind: evaluator.EventStart, Phase: "behavior", Candidate: "a"})
	at(0, evaluator.Event{Kind: evaluator.EventStart, Phase: "behavior", Candidate: "b"})
	// b has run as long as a took: expect as long again, 2 s; c and d are
	// queued at a's 2 s; 6 s over two slots.
	if got := at(2, evaluator.Event{Kind: evaluator.EventDone, Candidate: "a", Done: 1, Result: failed}); !strings.HasSuffix(got, ", tests ETA 3.0s") {
		t.Errorf("after a: %q, want the tests' 3.0s left", got)
	}
	at(2, evaluator.Event{Kind: evaluator.EventStart, Phase: "behavior", Candidate: "c"})
	at(3, evaluator.Event{Kind: evaluator.EventTested, Candidate: "b"})
	at(3, evaluator.Event{Kind: evaluator.EventStart, Phase: "behavior", Candidate: "d"})
	// d, 2 s into a mean test of 2.67 s.
	if got := at(5, evaluator.Event{Kind: evaluator.EventDone, Candidate: "c", Done: 2, Result: failed}); !strings.HasSuffix(got, ", tests ETA 666ms") {
		t.Errorf("after c: %q, want what is left of d's mean test, 666ms", got)
	}
	at(6, evaluator.Event{Kind: evaluator.EventTested, Candidate: "d"})
	at(6, evaluator.Event{Kind: evaluator.EventPhase, Phase: "benchmark"})
	at(6, evaluator.Event{Kind: evaluator.EventStart, Phase: "benchmark", Candidate: "b"})
	at(7, evaluator.Event{Kind: evaluator.EventSample, Candidate: "b"})
	at(8, evaluator.Event{Kind: evaluator.EventSample, Candidate: "b"})
	// b at 1 s a pair: 8 pairs left to the cap of 10, and d to come at
	// b's pace to the cap, 10 s.
	if got := tr.eta(); got != ", ETA 18s" {
		t.Errorf("during b's benchmark: %q, want 18s", got)
	}
	// A wait for the machine does not count against the benchmark: its
	// budget starts once the machine is held.
	at(9, evaluator.Event{Kind: evaluator.EventDone, Candidate: "b", Done: 3, Result: &evaluator.CandidateResult{Verdict: evaluator.VerdictNotFaster}})
	at(9, evaluator.Event{Kind: evaluator.EventStart, Phase: "benchmark", Candidate: "d"})
	at(10, evaluator.Event{Kind: evaluator.EventWaiting, Message: "waiting for the machine: someone"})
	at(40, evaluator.Event{Kind: evaluator.EventWaiting})
	// d at b's 3 s, none of it spent yet.
	if got := tr.eta(); got != ", ETA 3.0s" {
		t.Errorf("d's benchmark once the machine is held: %q, want b's 3.0s", got)
	}
}
