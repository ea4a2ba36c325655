package progress

import (
	"fmt"
	"github.com/optimizer-dev/optimizer/eta"
	"path"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/gotest"
	"github.com/optimizer-dev/optimizer/report"
	"github.com/optimizer-dev/optimizer/result"
)

// Tracker turns a job's events into progress lines. It is used by one
// goroutine.
type Tracker struct {
	// ETA estimates the time left; nil makes it the average time per
	// finished candidate.
	ETA *eta.ETA

	now        func() time.Time
	start      time.Time
	phase      string
	done       int
	total      int
	tested     int    // candidates that passed their tests (EventTested)
	current    string // candidate being benchmarked, or the latest started
	samples    int
	waiting    string  // who holds the machine this job waits for; "" when it does not wait
	minSpeedup float64 // the job's threshold, beside which intervals are printed (EventJobStart)

	testing   map[string]time.Time // candidates whose tests run, since when
	stuck     map[string]string    // the stuck test of a candidate whose tests run (EventStuck)
	order     []string             // the order their tests started in
	phaseFrom time.Time            // when the phase began
	contrib   map[string]time.Time // candidates that other candidates' added tests run on, since when
	corder    []string             // the order those runs started in
	printed   time.Time            // when the last line was returned
	refreshed bool                 // that line was a refresh
	shown     time.Time            // when the ETA on screen was; zero: none in this phase
	shownEst  eta.Estimate         // that ETA
}

// NewTracker returns a tracker that reads the time from now, with the
// estimator est (nil: none).
func NewTracker(now func() time.Time, est *eta.ETA) *Tracker {
	return &Tracker{ETA: est, now: now, start: now(), testing: map[string]time.Time{}, stuck: map[string]string{},
		contrib: map[string]time.Time{}}
}

// Line returns the line to print for e, or "" for none.
func (t *Tracker) Line(e result.Event) string {
	line := t.line(e)
	if line != "" {
		t.printed, t.refreshed = t.now(), false
	}
	return line
}

func (t *Tracker) line(e result.Event) string {
	if e.Total > 0 {
		t.total = e.Total
	}
	if t.ETA != nil {
		t.ETA.Observe(e, t.now())
	}
	switch e.Kind {
	case result.EventJobStart:
		t.start, t.minSpeedup = t.now(), e.MinSpeedup
		return fmt.Sprintf("job %s: %d candidates", e.Message, e.Total)
	case result.EventBaseline:
		if t.ETA != nil {
			// Base's time is the first thing that says how long a test
			// takes: the tests' ETA starts here.
			return "baseline: " + e.Message + t.eta()
		}
		return "baseline: " + e.Message
	case result.EventPhase:
		t.phase, t.phaseFrom = e.Phase, t.now()
		t.shown = time.Time{} // a tests ETA says nothing of the benchmarks
		if e.Phase != result.PhaseBehavior {
			// Every candidate's own tests have ended: one left for the
			// contributed tests has no verdict yet, but is not testing.
			clear(t.testing)
			clear(t.stuck)
			t.order = nil
		}
		return "phase: " + e.Phase
	case result.EventStart:
		if e.Phase == result.PhaseContributed {
			if _, ok := t.contrib[e.Candidate]; !ok {
				t.contrib[e.Candidate] = t.now()
				t.corder = append(t.corder, e.Candidate)
			}
			return ""
		}
		t.current, t.samples = e.Candidate, 0
		if e.Phase == "behavior" {
			t.testing[e.Candidate] = t.now()
			t.order = append(t.order, e.Candidate)
		}
		if e.Phase == "benchmark" && t.ETA != nil && t.shown.IsZero() {
			// The job's first benchmark: the ETA from what is known before
			// any pair (eta.ETA's Sample), as no other line gives one
			// until its pairs come.
			return fmt.Sprintf("[%d/%d] %s: %s%s", t.done, t.total, e.Candidate, e.Phase, t.eta())
		}
		if e.Phase == "benchmark" || e.Phase == "profile" {
			return fmt.Sprintf("[%d/%d] %s: %s", t.done, t.total, e.Candidate, e.Phase)
		}
	case result.EventScope:
		if e.Candidate == "" { // the job's: for every candidate
			return fmt.Sprintf("[%d/%d] %s", t.done, t.total, e.Message)
		}
		return fmt.Sprintf("[%d/%d] %s: %s", t.done, t.total, e.Candidate, e.Message)
	case result.EventSample:
		t.samples = max(t.samples+1, e.Pair) // reused pairs count: a refinement goes on from its quick look's
	case result.EventWarning:
		return "warning: " + e.Message
	case result.EventWaiting:
		was := t.waiting
		t.waiting = e.Message
		switch {
		case e.Message == "" && was == "":
			return "" // a benchmark took the machine with no wait
		case e.Message == "":
			return "the machine is free"
		}
		return fmt.Sprintf("[%d/%d] %s", t.done, t.total, e.Message)
	case result.EventStuck:
		if e.Message == "" {
			delete(t.stuck, e.Candidate)
			return ""
		}
		t.stuck[e.Candidate] = testName(e.Message)
		return fmt.Sprintf("[%d/%d] %s: %s looks stuck%s%s", t.done, t.total, e.Candidate, testName(e.Message), stuckFor(e, t.now()), t.eta())
	case result.EventTested:
		t.tested++
		delete(t.testing, e.Candidate)
		delete(t.stuck, e.Candidate)
	case result.EventDone:
		delete(t.testing, e.Candidate)
		delete(t.stuck, e.Candidate)
		delete(t.contrib, e.Candidate)
		t.done = max(t.done, e.Done)
		return fmt.Sprintf("[%d/%d] %s: %s%s", e.Done, t.total, e.Candidate, report.ProgressLine(e.Result, t.minSpeedup), t.eta())
	}
	return ""
}

// eta is ", ETA 8s" from what is left (package eta). It adds ", up to 40s"
// when the most that can be left is over 1.5 times that. It is ", tests ETA
// 8s" while only the tests' time left is known, and "" when nothing says.
// With no estimator it is the average time per finished candidate.
func (t *Tracker) eta() string {
	if t.done >= t.total {
		return ""
	}
	if t.ETA != nil {
		est, ok := t.ETA.Estimate(t.now())
		if !ok {
			return ""
		}
		return t.etaText(est)
	}
	if t.done == 0 {
		return ""
	}
	per := t.now().Sub(t.start) / time.Duration(t.done)
	return ", ETA " + report.ShortDuration(per*time.Duration(t.total-t.done))
}

// etaText is ", ETA 8s", ", ETA 8s, up to 40s" or ", tests ETA 8s" for
// est, which it records as the ETA on screen.
func (t *Tracker) etaText(est eta.Estimate) string {
	t.shown, t.shownEst = t.now(), est
	s := report.ShortDuration(est.Left)
	if est.Most > est.Left*3/2 {
		s += ", up to " + report.ShortDuration(est.Most)
	}
	if est.Tests {
		return ", tests ETA " + s
	}
	return ", ETA " + s
}

// A plain display prints an ETA with each verdict. Between verdicts the
// ETA on screen is that one, counted down, while what it could not know
// happens: a hanging test runs to its timeout, a benchmark to its cap.
//
// Lines asks Refresh every refreshTick. Refresh gives a line saying what
// runs and the ETA now when:
//   - no ETA is on screen;
//   - the ETA on screen, counted down, is off the estimate now by more than
//     refreshDrift and a second. When half the time left is less than that,
//     half the time left is the limit: in a phase's last seconds a second
//     is most of what is left;
//   - heartbeatAfter has passed since the last line.
//
// It gives none within refreshAfter of another line, except once after an
// event's line whose ETA has run out while the work goes on. A job whose
// ETA stays on track gets no more lines than before.
const (
	refreshTick    = time.Second      // how often Lines asks
	refreshAfter   = 3 * time.Second  // no refresh sooner after a line, when an ETA is on screen
	heartbeatAfter = 30 * time.Second // a refresh after this long, drift or not
	refreshDrift   = 1.25             // the ETA on screen against the estimate now
)

// Refresh returns the line to print now, though no event came, or "":
// "[3/6] testing hang (11s), tests ETA 4.2s" or "[4/6] fast: benchmark,
// 5 pairs, ETA 15s". It gives none without an estimate, while waiting for
// the machine (that wait has its own line), and outside the tests and the
// benchmarks.
func (t *Tracker) Refresh() string {
	if t.ETA == nil || t.waiting != "" || t.total == 0 || t.done >= t.total ||
		(t.phase != "behavior" && t.phase != result.PhaseContributed && t.phase != "benchmark") {
		return ""
	}
	now := t.now()
	quiet := now.Sub(t.printed)
	ranOut := !t.shown.IsZero() && now.Sub(t.shown) >= t.shownEst.Left && !t.refreshed
	if quiet < refreshTick || (quiet < refreshAfter && !t.shown.IsZero() && !ranOut) {
		return ""
	}
	est, ok := t.ETA.Estimate(now)
	if !ok || (quiet < heartbeatAfter && !t.drifted(est, now)) {
		return ""
	}
	t.printed, t.refreshed = now, true
	return t.activity() + t.etaText(est)
}

// drifted says whether the ETA on screen, counted down, is off est by more
// than refreshDrift and at least a second or half the larger, or none is
// on screen.
func (t *Tracker) drifted(est eta.Estimate, now time.Time) bool {
	if t.shown.IsZero() || t.shownEst.Tests != est.Tests {
		return true
	}
	on := max(0, t.shownEst.Left-now.Sub(t.shown))
	if (on - est.Left).Abs() < min(time.Second, max(on, est.Left)/2) {
		return false
	}
	return on.Seconds() > refreshDrift*est.Left.Seconds() || est.Left.Seconds() > refreshDrift*on.Seconds()
}

// activity is what the job is doing, for a refreshed line: "[2/6] testing
// hang (12s), slower (3.0s)", "[2/6] contributed tests (12m25s): on fast
// (3m02s)" or "[4/6] fast: benchmark, 5 pairs".
func (t *Tracker) activity() string {
	head := fmt.Sprintf("[%d/%d] ", t.done, t.total)
	switch t.phase {
	case "benchmark":
		return head + fmt.Sprintf("%s: benchmark, %d pairs", t.current, t.samples)
	case result.PhaseContributed:
		return head + t.contributed()
	}
	var running []string
	for _, name := range t.order {
		from, ok := t.testing[name]
		if !ok {
			continue
		}
		s := name + " (" + report.ShortDuration(t.now().Sub(from))
		if test := t.stuck[name]; test != "" {
			s += ", stuck in " + test
		}
		running = append(running, s+")")
	}
	if len(running) == 0 {
		return head + "testing"
	}
	return head + "testing " + report.ListSome(running, 3)
}

// contributed is the contributed-tests phase, for a refreshed line:
// "contributed tests (12m25s): on fast (3m02s), slow (40s)", or ": at
// base" before any candidate's run has started.
func (t *Tracker) contributed() string {
	s := "contributed tests (" + report.ShortDuration(t.now().Sub(t.phaseFrom)) + ")"
	var on []string
	for _, name := range t.corder {
		if from, ok := t.contrib[name]; ok {
			on = append(on, name+" ("+report.ShortDuration(t.now().Sub(from))+")")
		}
	}
	switch {
	case len(t.corder) == 0:
		return s + ": at base"
	case len(on) == 0:
		return s
	}
	return s + ": on " + report.ListSome(on, 3)
}

// stuckFor is " (running 2.1s, 10ms at base)" for a stuck test, or "" when
// the event does not say (a client that does not relay the times).
func stuckFor(e result.Event, now time.Time) string {
	if e.Since.IsZero() {
		return ""
	}
	at := report.ShortDuration(e.AtBase)
	if e.AtBase < 10*time.Millisecond {
		at = "under 10ms" // go test reports hundredths of a second
	}
	return fmt.Sprintf(" (running %s, %s at base)", report.ShortDuration(now.Sub(e.Since)), at)
}

// testName is a test's key as a person reads it: "sumsq.TestSum/n=3" for
// "example.com/demo/sumsq.TestSum/n=3".
func testName(key string) string {
	pkg, test := gotest.SplitKey(key)
	if pkg == "" || test == "" {
		return key
	}
	return path.Base(pkg) + "." + test
}

// Live is the job's current activity with the ETA now, for a bar or a
// status line drawn again every second. Examples: "testing, tests ETA 8s",
// "benchmark fast (12 samples), ETA 40s, up to 1m30s". A wait for the
// machine has no ETA: a wait is not foreseen.
func (t *Tracker) Live() string {
	s := t.Status()
	if t.waiting != "" {
		return s
	}
	if s == "behavior" {
		s = "testing"
		if t.total > 0 && t.done+t.tested >= t.total && len(t.testing) == 0 {
			s = "tests done" // the benchmarks are next
		}
	}
	return s + t.eta()
}

// Status is the job's current activity: "benchmark fast (12 samples)", the
// wait for the machine, or the phase.
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
