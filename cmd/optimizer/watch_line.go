package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"golang.org/x/term"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/evaluator/watch"
	"github.com/optimizer-dev/optimizer/report"
)

// record prints one line of the session: text, or a JSON object.
func (s *screen) record(r watch.Record, format string) {
	if format != formatJSON {
		s.line(r.Line())
		return
	}
	b, err := json.Marshal(r)
	if err != nil {
		b = []byte(fmt.Sprintf(`{"state":"failed","summary":%q}`, err.Error()))
	}
	s.line(string(b))
}

// report prints an evaluation's text report, for -v: on stdout, or beside
// the progress on stderr when stdout carries JSON.
func (s *screen) report(rep *evaluator.Report, format string) {
	out := s.out
	if format == formatJSON {
		out = s.err
	}
	report.Text(out, rep)
	fmt.Fprintln(out)
}

// progress shows an event of the evaluation in flight: a status line on a
// terminal, or with -v the plain progress lines.
func (s *screen) progress(tr *tracker, w *watch.Work, e evaluator.Event) {
	if tr == nil {
		return
	}
	line := tr.line(e)
	if s.verbose {
		if line != "" {
			fmt.Fprintln(s.err, line)
		}
		return
	}
	status := tr.status()
	if status == "behavior" {
		status = "testing"
	}
	s.setStatus(w.Subject() + ": " + status + "…")
}

// screen is the terminal, owned by loop: result lines go to out; on a
// terminal, a transient status line goes to err, erased before each line.
type screen struct {
	out, err io.Writer
	verbose  bool
	tty      bool
	status   bool // a status line is showing
}

func newScreen(stdout, stderr io.Writer, verbose bool) *screen {
	s := &screen{out: stdout, err: stderr, verbose: verbose}
	if f, ok := stderr.(*os.File); ok && !verbose && term.IsTerminal(int(f.Fd())) {
		s.tty = true
	}
	return s
}

func (s *screen) line(text string) {
	s.clear()
	fmt.Fprintln(s.out, text)
}

func (s *screen) setStatus(text string) {
	if !s.tty {
		return
	}
	fmt.Fprintf(s.err, "\r\x1b[K%s", text)
	s.status = true
}

func (s *screen) clear() {
	if s.status {
		fmt.Fprint(s.err, "\r\x1b[K")
		s.status = false
	}
}
