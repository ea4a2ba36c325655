package main

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/report"
)

// showProgress drains events until the channel is closed, writing progress
// to w: bars on a terminal, plain lines elsewhere (and with -v, where log
// lines would tear bars). It is the only writer to the terminal while a job
// runs.
func showProgress(events <-chan evaluator.Event, w io.Writer, verbose bool, est *evaluator.ETA) {
	if f, ok := w.(*os.File); ok && !verbose && term.IsTerminal(int(f.Fd())) {
		showBars(events, w, est)
		return
	}
	t := newTracker(time.Now)
	t.est = est
	for e := range events {
		if line := t.line(e); line != "" {
			fmt.Fprintln(w, line)
		}
	}
}

// showBars draws one overall bar with the current activity, and prints each
// candidate's line above it as the candidate finishes.
func showBars(events <-chan evaluator.Event, w io.Writer, est *evaluator.ETA) {
	t := newTracker(time.Now)
	t.est = est
	p := mpb.New(mpb.WithOutput(w), mpb.WithWidth(32), mpb.WithRefreshRate(150*time.Millisecond))
	var bar *mpb.Bar
	var st atomic.Pointer[string] // the renderer reads it on its own goroutine
	st.Store(new(string))
	status := func(decor.Statistics) string { return *st.Load() }
	for e := range events {
		line := t.line(e)
		s := t.status()
		st.Store(&s)
		if e.Kind == evaluator.EventJobStart && bar == nil {
			bar = p.AddBar(int64(max(1, e.Total)),
				mpb.PrependDecorators(decor.Name("candidates "), decor.CountersNoUnit("%d/%d")),
				mpb.AppendDecorators(decor.Elapsed(decor.ET_STYLE_GO, decor.WCSyncSpace), decor.Any(status, decor.WCSyncSpace)),
			)
		}
		if line != "" {
			fmt.Fprintln(p, line)
		}
		if bar != nil && e.Kind == evaluator.EventDone {
			bar.SetCurrent(int64(e.Done))
		}
	}
	if bar != nil {
		bar.SetTotal(-1, true) // complete it, at whatever count the job ended
	}
	p.Wait()
}

// tracker turns events into progress lines. It is used by one goroutine.
type tracker struct {
	now     func() time.Time
	start   time.Time
	phase   string
	done    int
	total   int
	current string // candidate being benchmarked, or the latest started
	samples int
	waiting string         // who holds the machine this job waits for; "" when it does not wait
	est     *evaluator.ETA // nil: the ETA is the average time per finished candidate
}

func newTracker(now func() time.Time) *tracker {
	return &tracker{now: now, start: now()}
}

// line returns the line to print for e, or "" for none.
func (t *tracker) line(e evaluator.Event) string {
	if e.Total > 0 {
		t.total = e.Total
	}
	if t.est != nil {
		t.est.Observe(e, t.now())
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
func (t *tracker) eta() string {
	if t.done >= t.total {
		return ""
	}
	if t.est != nil {
		est, ok := t.est.Estimate(t.now())
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

// status is the overall bar's activity text.
func (t *tracker) status() string {
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
