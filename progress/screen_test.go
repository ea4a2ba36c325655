package progress

import (
	"encoding/json"
	"github.com/optimizer-dev/optimizer/eta"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/result"
	"github.com/optimizer-dev/optimizer/watch"
)

// TestScreen_Status: on a terminal the status line is erased before each
// result line; elsewhere no status is written at all.
func TestScreen_Status(t *testing.T) {
	for _, tt := range []struct {
		name    string
		tty     bool
		wantErr string
	}{
		{"TTY", true, "\r\x1b[Ka: testing…\r\x1b[K"},
		{"NoTTY", false, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errw strings.Builder
			s := &Screen{Out: &out, Err: &errw, TTY: tt.tty}
			s.SetStatus("a: testing…")
			s.Record(watch.Record{Subject: "12:00:00 a.go", Summary: "tests pass"})
			s.Clear() // nothing shows: nothing to erase
			if got, want := out.String(), "12:00:00 a.go: tests pass\n"; got != want {
				t.Errorf("out = %q, want %q", got, want)
			}
			if got := errw.String(); got != tt.wantErr {
				t.Errorf("err = %q, want %q", got, tt.wantErr)
			}
		})
	}
}

// TestScreen_JSON: with JSON, a record is one object per line, and the
// verbose report goes to Err, beside the progress, not into the JSON.
func TestScreen_JSON(t *testing.T) {
	var out, errw strings.Builder
	s := &Screen{Out: &out, Err: &errw, JSON: true}
	s.Record(watch.Record{State: "tested", Summary: "tests pass", Subject: "ignored"})
	var got map[string]any
	if err := json.Unmarshal([]byte(out.String()), &got); err != nil || got["state"] != "tested" || got["summary"] != "tests pass" {
		t.Fatalf("out = %q (%v), want one JSON record", out.String(), err)
	}
	s.Report(&result.Report{Job: "job1"})
	if strings.Count(out.String(), "\n") != 1 || errw.Len() == 0 {
		t.Errorf("the report went to out (%q), not err (%q)", out.String(), errw.String())
	}
}

// TestScreen_Progress: a status line names the work and its activity
// (behaviour reads as testing); with Verbose the plain lines go to Err.
func TestScreen_Progress(t *testing.T) {
	var out, errw strings.Builder
	s := &Screen{Out: &out, Err: &errw, TTY: true}
	tr := NewTracker(func() (t0 time.Time) { return t0 }, nil)
	s.Progress(tr, &watch.Work{}, result.Event{Kind: result.EventPhase, Phase: "behavior"})
	if got := errw.String(); !strings.HasSuffix(got, ": testing…") {
		t.Errorf("status = %q, want it to end in testing…", got)
	}
	errw.Reset()
	s = &Screen{Out: &out, Err: &errw, Verbose: true}
	s.Progress(tr, &watch.Work{}, result.Event{Kind: result.EventPhase, Phase: "benchmark"})
	if got := errw.String(); got != "phase: benchmark\n" {
		t.Errorf("verbose = %q, want the plain line", got)
	}
	s.Progress(nil, &watch.Work{}, result.Event{Kind: result.EventPhase, Phase: "benchmark"}) // no tracker: nothing
	if out.Len() != 0 {
		t.Errorf("progress wrote to out: %q", out.String())
	}
}

// TestScreen_WaitsPiped: with no terminal and no Verbose, nothing but a
// wait for the machine is printed, on Err, each time it is said, and its
// end.
func TestScreen_WaitsPiped(t *testing.T) {
	var out, errw strings.Builder
	s := &Screen{Out: &out, Err: &errw}
	tr := NewTracker(time.Now, nil)
	w := &watch.Work{}
	msg := "waiting for the machine: optimizer pid 12 is benchmarking /src/r, since 12:03"
	for _, e := range []result.Event{
		{Kind: result.EventJobStart, Total: 1, Message: "job1"},
		{Kind: result.EventPhase, Phase: "benchmark"},
		{Kind: result.EventWaiting, Message: msg},
		{Kind: result.EventWaiting, Message: msg}, // said again 30 s on
		{Kind: result.EventWaiting},
	} {
		s.Progress(tr, w, e)
	}
	line := w.Subject() + ": [0/1] " + msg + "\n"
	if got, want := errw.String(), line+line+w.Subject()+": the machine is free\n"; got != want {
		t.Errorf("err = %q, want %q", got, want)
	}
	if out.Len() != 0 {
		t.Errorf("out = %q, want nothing", out.String())
	}
}

// TestScreen_Show: the session's callbacks drive the screen. A start shows
// a status with the work's subject, and its events track the work with
// package eta's estimator. A line erases the status. Only Verbose prints
// each report.
func TestScreen_Show(t *testing.T) {
	for _, verbose := range []bool{false, true} {
		var out, errw strings.Builder
		scr := &Screen{Out: &out, Err: &errw, TTY: !verbose, Verbose: verbose}
		var ws watch.Session
		var asked []*watch.Work
		scr.Show(&ws, func(w *watch.Work) *eta.ETA { asked = append(asked, w); return nil })
		w := &watch.Work{}
		ws.Started(w)
		ws.Progress(w, result.Event{Kind: result.EventPhase, Phase: "behavior"})
		ws.Tick(w) // the status again (no estimator: no ETA, and no refreshed line)
		ws.Out(watch.Record{Subject: "12:00:00 a.go", Summary: "tests pass"})
		ws.Finished(w, &result.Report{Job: "job1"})
		if len(asked) != 1 || asked[0] != w {
			t.Errorf("verbose %v: eta asked for %v, want the started work once", verbose, asked)
		}
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if lines[0] != "12:00:00 a.go: tests pass" || (len(lines) > 1) != verbose {
			t.Errorf("verbose %v: out = %q, want the line, then the report only with -v", verbose, out.String())
		}
		wantErr := "\r\x1b[K" + w.Subject() + ": starting…\r\x1b[K" + w.Subject() + ": testing…\r\x1b[K" + w.Subject() + ": testing…\r\x1b[K"
		if verbose {
			wantErr = "phase: behavior\n"
		}
		if errw.String() != wantErr {
			t.Errorf("verbose %v: err = %q, want %q", verbose, errw.String(), wantErr)
		}
	}
}

// TestScreen_Tick: between events, the status line is drawn again with its
// ETA counted down. With Verbose, a refreshed line is printed when the ETA
// last printed has gone wrong, as a run's plain progress does.
func TestScreen_Tick(t *testing.T) {
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	events := []result.Event{{Kind: result.EventJobStart, Total: 1, Message: "job1"},
		{Kind: result.EventPhase, Phase: "behavior"},
		{Kind: result.EventStart, Phase: "behavior", Candidate: "a"},
		{Kind: result.EventBaseline, Message: "baseline tests (cached): 1 passed", AtBase: 4 * time.Second}}
	w := &watch.Work{}

	var errw strings.Builder
	s := &Screen{Out: io.Discard, Err: &errw, TTY: true}
	tr := NewTracker(clock, &eta.ETA{Slots: 1, NoBench: true})
	for _, e := range events {
		s.Progress(tr, w, e)
	}
	now = now.Add(3 * time.Second)
	errw.Reset()
	s.Tick(tr, w)
	if got, want := errw.String(), "\r\x1b[K"+w.Subject()+": testing, ETA 1.0s…"; got != want {
		t.Errorf("status after 3 s = %q, want %q", got, want)
	}

	errw.Reset()
	s = &Screen{Out: io.Discard, Err: &errw, Verbose: true}
	tr = NewTracker(clock, &eta.ETA{Slots: 1, NoBench: true})
	for _, e := range events {
		s.Progress(tr, w, e)
	}
	if got, want := errw.String(), "job job1: 1 candidates\nphase: behavior\nbaseline: baseline tests (cached): 1 passed, ETA 4.0s\n"; got != want {
		t.Errorf("verbose lines = %q, want %q", got, want)
	}
	now = now.Add(2 * time.Second)
	errw.Reset()
	s.Tick(tr, w) // on track: 2 s on screen, 2 s left
	if errw.Len() != 0 {
		t.Errorf("verbose tick on track printed %q, want nothing", errw.String())
	}
	now = now.Add(8 * time.Second) // a has run 10 s of base's 4: as long again
	s.Tick(tr, w)
	if got, want := errw.String(), "[0/1] testing a (10s), ETA 10s\n"; got != want {
		t.Errorf("verbose tick off track = %q, want %q", got, want)
	}
	s.Tick(nil, w) // no tracker: nothing
}
