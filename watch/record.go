package watch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/report"
)

// Record is what became of one evaluation, or of one of its candidates:
// one line of watch's output. As JSON it is one line of optimizer watch
// --format json: the candidate object of the report's JSON contract, with
// what triggered it.
type Record struct {
	Time      time.Time `json:"time"`    // when the save settled
	Trigger   []string  `json:"trigger"` // the changed files
	State     string    `json:"state"`   // tested, finished, interrupted, failed, skipped
	Summary   string    `json:"summary"` // the text line, without time and trigger
	Job       string    `json:"job,omitempty"`
	Base      string    `json:"base,omitempty"`
	HeadMoved bool      `json:"head_moved,omitempty"`
	*evaluator.CandidateResult
	// Subject starts the text line: the time of the save and what changed.
	Subject string `json:"-"`
}

// Line is the record as a line of text: "12:03:41 sumsq/sumsq.go: tests
// 48/48 pass · BenchmarkSumSquares 3.10× faster [2.90×, 3.30×]".
func (r Record) Line() string { return r.Subject + ": " + r.Summary }

// finish says what became of a flight: one record per candidate, or one for
// work that produced no candidate result.
func (s *Session) finish(st *state, f *flight, res outcome) {
	w := f.w
	switch {
	case res.skip != "":
		s.emit(w, nil, nil, "skipped", res.skip)
	case res.rep == nil && res.err != nil && cancelled(res.err):
		s.emit(w, nil, nil, "interrupted", cut(f))
	case res.rep == nil:
		s.emit(w, nil, nil, "failed", fmt.Sprintf("evaluate: %v", res.err))
	default:
		s.emitReport(f, res)
	}
	s.pruneArtifacts(st, res.rep)
}

// cancelled reports whether err is a context's: the evaluation was cut off.
func cancelled(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// emitReport says a job's records, one per candidate, then hands a report
// that was not interrupted to Finished.
func (s *Session) emitReport(f *flight, res outcome) {
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
			msg = cut(f) + "; so far: " + report.WatchLine(c, rep.MinSpeedup)
		case state == "interrupted":
			msg = cut(f)
		case state == "failed" && c.Verdict == evaluator.VerdictPending:
			msg = fmt.Sprintf("evaluate: %v", res.err)
		default:
			msg = report.WatchLine(c, rep.MinSpeedup)
		}
		if len(rep.Candidates) > 1 || f.w.key != "tree" {
			msg = c.Name + ": " + msg
		}
		if f.w.refine {
			msg = "refined: " + msg
		}
		s.emit(f.w, rep, c, state, msg)
	}
	if s.Finished != nil && state != "interrupted" {
		s.Finished(f.w, rep)
	}
}

// cut says why an evaluation stopped before its end.
func cut(f *flight) string {
	if f.superseded {
		return "interrupted by a newer save"
	}
	return "interrupted: optimizer is stopping"
}

// progress passes on an event of the evaluation in flight, after saying
// the test verdict of a candidate whose benchmark is to come.
func (s *Session) progress(f *flight, e evaluator.Event) {
	if f == nil {
		return
	}
	if e.Kind == evaluator.EventTested && e.Result != nil {
		s.tested(f, e.Result)
	}
	if s.Progress != nil {
		s.Progress(f.w, e)
	}
}

// tested says the test verdict of a candidate whose benchmark is to come,
// at once: a save's tests take seconds, its benchmark longer. The final
// record follows when the benchmark is done; this one's state is "tested".
func (s *Session) tested(f *flight, c *evaluator.CandidateResult) {
	if f.w.refine {
		return // said by the quick verdict already
	}
	msg := report.WatchLine(c, 0) + " · measuring speed…" // tests only: no interval to print
	if f.w.key != "tree" {
		msg = c.Name + ": " + msg
	}
	s.emit(f.w, nil, c, "tested", msg)
}

// emit hands one record to Out.
func (s *Session) emit(w *Work, rep *evaluator.Report, c *evaluator.CandidateResult, state, summary string) {
	r := Record{Time: w.time, Trigger: w.trigger, State: state, Summary: summary,
		Base: w.head, HeadMoved: w.headMoved, CandidateResult: c, Subject: w.Subject()}
	if r.Trigger == nil {
		r.Trigger = []string{}
	}
	if rep != nil {
		r.Job, r.Base = rep.Job, rep.Base
	}
	s.Out(r)
}
