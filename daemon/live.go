package daemon

import (
	"sync"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/store"
)

// liveReport is a running job's report as its events build it: the JSON
// report contract, partial (candidates without a verdict are pending). It
// is safe for concurrent use.
type liveReport struct {
	mu  sync.Mutex
	rep evaluator.Report
}

func newLiveReport(qj store.QueuedJob, spec *jobSpec) *liveReport {
	l := &liveReport{rep: evaluator.Report{Repo: spec.Root, Base: spec.Base, State: "running", Started: time.Now()}}
	for _, c := range spec.Candidates {
		l.rep.Candidates = append(l.rep.Candidates, evaluator.CandidateResult{
			Name: c.Name, Source: c.Source, Parent: c.Parent, Explanation: c.Explanation, Verdict: evaluator.VerdictPending,
		})
	}
	return l
}

func (l *liveReport) update(ev evaluator.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch ev.Kind {
	case evaluator.EventJobStart:
		l.rep.Job = ev.Message
	case evaluator.EventWarning:
		l.rep.Warnings = append(l.rep.Warnings, ev.Message)
	case evaluator.EventTested, evaluator.EventDone:
		if ev.Result != nil && ev.Index >= 0 && ev.Index < len(l.rep.Candidates) {
			l.rep.Candidates[ev.Index] = *ev.Result
		}
	}
}

// snapshot returns a copy of the report so far.
func (l *liveReport) snapshot() *evaluator.Report {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.rep
	r.Candidates = append([]evaluator.CandidateResult(nil), l.rep.Candidates...)
	r.Warnings = append([]string(nil), l.rep.Warnings...)
	r.Seconds = time.Since(r.Started).Seconds()
	return &r
}
