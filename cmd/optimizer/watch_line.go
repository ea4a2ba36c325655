package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/report"
)

// watchRecord is one line of optimizer watch --format json: the candidate
// object of the report's JSON contract, with what triggered it.
type watchRecord struct {
	Time      time.Time `json:"time"`    // when the save settled
	Trigger   []string  `json:"trigger"` // the changed files
	State     string    `json:"state"`   // finished, interrupted, failed, skipped
	Summary   string    `json:"summary"` // the text line, without time and trigger
	Job       string    `json:"job,omitempty"`
	Base      string    `json:"base,omitempty"`
	HeadMoved bool      `json:"head_moved,omitempty"`
	*evaluator.CandidateResult
}

// finish prints what became of a flight: one line per candidate, the
// report with -v, or a JSON object per candidate.
func (s *session) finish(f *flight, res outcome) {
	s.screen.clear()
	w := f.w
	switch {
	case res.skip != "":
		s.emit(w, nil, "skipped", res.skip)
	case res.rep == nil && res.err != nil && cancelled(res.err):
		s.emit(w, nil, "interrupted", s.cut(f))
	case res.rep == nil:
		s.emit(w, nil, "failed", fmt.Sprintf("evaluate: %v", res.err))
	default:
		s.emitReport(f, res)
	}
	s.pruneArtifacts(res.rep)
}

// emitReport prints a job's lines, one per candidate, and with -v its
// text report.
func (s *session) emitReport(f *flight, res outcome) {
	rep := res.rep
	state := rep.State
	if state == "" {
		state = "finished"
	}
	for i := range rep.Candidates {
		c := &rep.Candidates[i]
		var msg string
		switch {
		case state == "interrupted" && c.Verdict != evaluator.VerdictPending:
			msg = s.cut(f) + "; so far: " + report.WatchLine(c)
		case state == "interrupted":
			msg = s.cut(f)
		case state == "failed" && c.Verdict == evaluator.VerdictPending:
			msg = fmt.Sprintf("evaluate: %v", res.err)
		default:
			msg = report.WatchLine(c)
		}
		if len(rep.Candidates) > 1 || f.w.key != "tree" {
			msg = c.Name + ": " + msg
		}
		if f.w.refine {
			msg = "refined: " + msg
		}
		s.emitCandidate(f.w, rep, c, state, msg)
	}
	if s.o.Verbose && state != "interrupted" {
		out := s.screen.out
		if s.o.Format == formatJSON {
			out = s.screen.err
		}
		report.Text(out, rep)
		fmt.Fprintln(out)
	}
}

// cut says why an evaluation stopped before its end.
func (s *session) cut(f *flight) string {
	if f.superseded {
		return "interrupted by a newer save"
	}
	return "interrupted: optimizer is stopping"
}

// progress shows an event of the evaluation in flight: a status line on a
// terminal, or with -v the plain progress lines.
func (s *session) progress(f *flight, e evaluator.Event) {
	if f == nil || f.tracker == nil {
		return
	}
	if e.Kind == evaluator.EventTested && e.Result != nil {
		s.tested(f, e.Result)
	}
	line := f.tracker.line(e)
	if s.o.Verbose {
		if line != "" {
			fmt.Fprintln(s.screen.err, line)
		}
		return
	}
	status := f.tracker.status()
	if status == "behavior" {
		status = "testing"
	}
	s.screen.setStatus(s.subject(f.w) + ": " + status + "…")
}

// tested prints the test verdict of a candidate whose benchmark is to
// come, at once: a save's tests take seconds, its benchmark longer. The
// final line follows when the benchmark is done; in JSON, this record's
// state is "tested".
func (s *session) tested(f *flight, c *evaluator.CandidateResult) {
	if f.w.refine {
		return // said by the quick verdict already
	}
	msg := report.WatchLine(c) + " · measuring speed…"
	if f.w.key != "tree" {
		msg = c.Name + ": " + msg
	}
	s.emitCandidate(f.w, nil, c, "tested", msg)
}

// emit prints the line of work that produced no candidate result.
func (s *session) emit(w *work, rep *evaluator.Report, state, summary string) {
	s.emitCandidate(w, rep, nil, state, summary)
}

// emitCandidate prints one evaluation's line: text, or a JSON object.
func (s *session) emitCandidate(w *work, rep *evaluator.Report, c *evaluator.CandidateResult, state, summary string) {
	if s.o.Format != formatJSON {
		s.screen.line(s.subject(w) + ": " + summary)
		return
	}
	r := watchRecord{Time: w.time, Trigger: w.trigger, State: state, Summary: summary,
		Base: w.head, HeadMoved: w.headMoved, CandidateResult: c}
	if r.Trigger == nil {
		r.Trigger = []string{}
	}
	if rep != nil {
		r.Job, r.Base = rep.Job, rep.Base
	}
	b, err := json.Marshal(r)
	if err != nil {
		b = []byte(fmt.Sprintf(`{"state":"failed","summary":%q}`, err.Error()))
	}
	s.screen.line(string(b))
}

// subject is the start of a text line: the time of the save and what
// changed, "12:03:41 sumsq/sumsq.go".
func (s *session) subject(w *work) string {
	var parts []string
	if w.headMoved {
		parts = append(parts, "HEAD → "+report.ShortHash(w.head))
	}
	if t := triggerText(w.trigger); t != "" {
		parts = append(parts, t)
	}
	if len(parts) == 0 {
		parts = append(parts, "working tree")
	}
	return w.time.Format("15:04:05") + " " + strings.Join(parts, ", ")
}

// triggerText names up to three changed files, then says how many more.
func triggerText(paths []string) string {
	if len(paths) <= 3 {
		return strings.Join(paths, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(paths[:2], ", "), len(paths)-2)
}

// screen is the terminal, owned by loop: result lines go to out; on a
// terminal, a transient status line goes to err, erased before each line.
type screen struct {
	out, err io.Writer
	tty      bool
	status   bool // a status line is showing
}

func newScreen(stdout, stderr io.Writer, verbose bool) *screen {
	s := &screen{out: stdout, err: stderr}
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
