package progress

import (
	"encoding/json"
	"fmt"
	"github.com/optimizer-dev/optimizer/eta"
	"io"
	"time"

	"github.com/optimizer-dev/optimizer/report"
	"github.com/optimizer-dev/optimizer/result"
	"github.com/optimizer-dev/optimizer/watch"
)

// Screen is watch's terminal: result lines go to Out; on a terminal (TTY),
// a transient status line goes to Err, erased before each line. It is used
// by one goroutine: the session's.
type Screen struct {
	Out, Err io.Writer
	JSON     bool // lines are JSON objects, and reports go to Err
	Verbose  bool // progress lines on Err and full reports, instead of a status line
	TTY      bool // Err is a terminal: a status line shows there

	status bool // a status line is showing
}

// Show makes the screen show the session ws. It sets five fields of ws,
// before ws.Run:
//   - Out: the session's lines;
//   - Started and Progress: the status of the evaluation in flight, with the
//     time left from package eta's estimator;
//   - Tick: that time counted down every second;
//   - Finished: with Verbose, each evaluation's report.
func (s *Screen) Show(ws *watch.Session, eta func(*watch.Work) *eta.ETA) {
	var tr *Tracker // the evaluation in flight's; only the session's goroutine uses it
	ws.Out = s.Record
	ws.Started = func(w *watch.Work) {
		tr = NewTracker(time.Now, eta(w))
		s.SetStatus(w.Subject() + ": starting…")
	}
	ws.Progress = func(w *watch.Work, e result.Event) { s.Progress(tr, w, e) }
	ws.Tick = func(w *watch.Work) { s.Tick(tr, w) }
	ws.Finished = func(_ *watch.Work, rep *result.Report) {
		if s.Verbose {
			s.Report(rep)
		}
	}
}

// Record prints one line of the session: text, or a JSON object.
func (s *Screen) Record(r watch.Record) {
	if !s.JSON {
		s.Line(r.Line())
		return
	}
	b, err := json.Marshal(r)
	if err != nil {
		b = []byte(fmt.Sprintf(`{"state":"failed","summary":%q}`, err.Error()))
	}
	s.Line(string(b))
}

// Report prints an evaluation's text report, for -v: on Out, or beside the
// progress on Err when Out carries JSON.
func (s *Screen) Report(rep *result.Report) {
	out := s.Out
	if s.JSON {
		out = s.Err
	}
	report.Text(out, rep)
	fmt.Fprintln(out)
}

// Progress shows an event of w, the evaluation in flight, that tr tracks.
// On a terminal it draws a status line; when Verbose, it prints the plain
// progress lines. Elsewhere, with no status line, a wait for the machine
// still gets its line on Err each time the job says it. That is at least
// every 30 s while it lasts, so output piped to a file shows why nothing
// happens. A nil tr shows nothing.
func (s *Screen) Progress(tr *Tracker, w *watch.Work, e result.Event) {
	if tr == nil {
		return
	}
	line := tr.Line(e)
	switch {
	case s.Verbose:
		if line != "" {
			fmt.Fprintln(s.Err, line)
		}
		return
	case !s.TTY && e.Kind == result.EventWaiting && line != "":
		fmt.Fprintln(s.Err, w.Subject()+": "+line)
	}
	s.showStatus(tr, w)
}

// Tick shows the time passing while w, the evaluation in flight that tr
// tracks, runs between events: the status line again, its ETA counted
// down. With Verbose it also prints a refreshed progress line when the ETA
// last printed has gone wrong (Tracker.Refresh). A nil tr shows nothing.
func (s *Screen) Tick(tr *Tracker, w *watch.Work) {
	if tr == nil {
		return
	}
	if s.Verbose {
		if line := tr.Refresh(); line != "" {
			fmt.Fprintln(s.Err, line)
		}
		return
	}
	s.showStatus(tr, w)
}

// showStatus shows the status line of w, which tr tracks.
func (s *Screen) showStatus(tr *Tracker, w *watch.Work) {
	s.SetStatus(w.Subject() + ": " + tr.Live() + "…")
}

// Line prints a line on Out, erasing the status line first.
func (s *Screen) Line(text string) {
	s.Clear()
	fmt.Fprintln(s.Out, text)
}

// SetStatus shows text as the status line, on a terminal only.
func (s *Screen) SetStatus(text string) {
	if !s.TTY {
		return
	}
	fmt.Fprintf(s.Err, "\r\x1b[K%s", text)
	s.status = true
}

// Clear erases the status line, if one shows.
func (s *Screen) Clear() {
	if s.status {
		fmt.Fprint(s.Err, "\r\x1b[K")
		s.status = false
	}
}
