package daemon

import (
	"github.com/optimizer-dev/optimizer/eta"
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
	eta *eta.ETA // nil until the job's options are known
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

// setETA starts estimating what is left of the job, as the CLI's progress
// does; the dashboard shows it.
func (l *liveReport) setETA(opts evaluator.Options) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.eta = evaluator.NewETA(opts)
}

// left is the ETA's best guess of what is left; ok is false when it cannot
// say yet.
func (l *liveReport) left() (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.eta == nil {
		return 0, false
	}
	est, ok := l.eta.Estimate(time.Now())
	return est.Left, ok
}

func (l *liveReport) update(ev evaluator.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.eta != nil {
		l.eta.Observe(ev, time.Now())
	}
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
