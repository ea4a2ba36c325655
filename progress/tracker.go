package progress

import (
	"fmt"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/report"
)

// Tracker turns a job's events into progress lines. It is used by one
// goroutine.
type Tracker struct {
	// ETA estimates the time left; nil makes it the average time per
	// finished candidate.
	ETA *evaluator.ETA

	now     func() time.Time
	start   time.Time
	phase   string
	done    int
	total   int
	current string // candidate being benchmarked, or the latest started
	samples int
	waiting string // who holds the machine this job waits for; "" when it does not wait
}

// NewTracker returns a tracker that reads the time from now, with the
// estimator est (nil: none).
func NewTracker(now func() time.Time, est *evaluator.ETA) *Tracker {
	return &Tracker{ETA: est, now: now, start: now()}
}

// Line returns the line to print for e, or "" for none.
func (t *Tracker) Line(e evaluator.Event) string {
	if e.Total > 0 {
		t.total = e.Total
	}
	if t.ETA != nil {
		t.ETA.Observe(e, t.now())
	}
	switch e.Kind {
	case evaluator.EventJobStart:
		t.start = t.now()
		return fmt.Sprintf("job %s: %d candidates", e.Message, e.Total)
	case evaluator.EventBaseline:
		return "baseline: " + e.Message
	case evaluator.EventPhase:
		t.phase = e.Phase
		return "phase: " + e.Phase
	case evaluator.EventStart:
		t.current, t.samples = e.Candidate, 0
		if e.Phase == "benchmark" || e.Phase == "profile" {
			return fmt.Sprintf("[%d/%d] %s: %s", t.done, t.total, e.Candidate, e.Phase)
		}
	case evaluator.EventSample:
		t.samples++
	case evaluator.EventWarning:
		return "warning: " + e.Message
	case evaluator.EventWaiting:
		t.waiting = e.Message
		if e.Message == "" {
			return "the machine is free"
		}
		return fmt.Sprintf("[%d/%d] %s", t.done, t.total, e.Message)
	case evaluator.EventDone:
		t.done = max(t.done, e.Done)
		return fmt.Sprintf("[%d/%d] %s: %s%s", e.Done, t.total, e.Candidate, report.ProgressLine(e.Result), t.eta())
	}
	return ""
}

// eta is ", ETA 8s" from what is left (evaluator.ETA), with ", up to 40s"
// when the most that can be left is over 1.5 times that; ", tests ETA 8s"
// while only the tests' time left is known; or "" when nothing says. With
// no estimator it is the average time per finished candidate.
func (t *Tracker) eta() string {
	if t.done >= t.total {
		return ""
	}
	if t.ETA != nil {
		est, ok := t.ETA.Estimate(t.now())
		if !ok {
			return ""
		}
		s := report.ShortDuration(est.Left)
		if est.Most > est.Left*3/2 {
			s += ", up to " + report.ShortDuration(est.Most)
		}
		if est.Tests {
			return ", tests ETA " + s
		}
		return ", ETA " + s
	}
	if t.done == 0 {
		return ""
	}
	per := t.now().Sub(t.start) / time.Duration(t.done)
	return ", ETA " + report.ShortDuration(per*time.Duration(t.total-t.done))
}

// Status is the job's current activity, for a bar or a status line:
// "benchmark fast (12 samples)", the wait for the machine, or the phase.
func (t *Tracker) Status() string {
	switch {
	case t.waiting != "":
		return t.waiting
	case t.phase == "benchmark" && t.current != "":
		return fmt.Sprintf("benchmark %s (%d samples)", t.current, t.samples)
	case t.phase != "":
		return t.phase
	}
	return "starting"
}
