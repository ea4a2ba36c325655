package daemon

import (
	"sync"
	"time"

	"github.com/optimizer-dev/optimizer/eta"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/result"
	"github.com/optimizer-dev/optimizer/store"
)

// liveReport is a running job's report as its events build it. It is the
// JSON report contract, partial (candidates without a verdict are pending).
// It adds the job's settings and each unsettled candidate's stage (Live).
// It is safe for concurrent use.
type liveReport struct {
	mu       sync.Mutex
	rep      evaluator.Report
	eta      *eta.ETA // nil until the job's options are known
	maxPairs int
}

func newLiveReport(qj store.QueuedJob, spec *jobSpec) *liveReport {
	l := &liveReport{rep: evaluator.Report{Repo: spec.Root, Base: spec.Base, State: "running", Started: time.Now()}}
	for _, c := range spec.Candidates {
		l.rep.Candidates = append(l.rep.Candidates, evaluator.CandidateResult{
			Name: c.Name, Source: c.Source, Parent: c.Parent, Explanation: c.Explanation, Verdict: evaluator.VerdictPending,
			Live: &evaluator.Live{Stage: result.StageQueued},
		})
	}
	return l
}

// setOptions records the settings the job runs with on its slots, and
// starts estimating what is left of it, as the CLI's progress does; the
// dashboard shows it.
func (l *liveReport) setOptions(opts evaluator.Options, slots int) {
	d := evaluator.WithDefaults(opts)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rep.Parallel, l.rep.MinSpeedup, l.maxPairs = max(1, slots), d.MinSpeedup, d.MaxPairs
	l.eta = evaluator.NewETA(opts, slots)
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
		if ev.Slots > 0 {
			l.rep.Parallel = ev.Slots
		}
	case evaluator.EventWarning:
		l.rep.Warnings = append(l.rep.Warnings, ev.Message)
	case evaluator.EventTested, evaluator.EventDone:
		if c := l.candidate(ev); c != nil && ev.Result != nil {
			*c = *ev.Result
		}
	case evaluator.EventStart:
		l.stage(ev, map[string]string{"behavior": result.StageTesting, "benchmark": result.StageWaiting}[ev.Phase])
	case evaluator.EventWaiting:
		if ev.Candidate != "" { // it took the machine
			l.stage(ev, result.StageSetup)
			break
		}
		for i := range l.rep.Candidates { // Live values are shared with snapshots: replaced, never changed
			if c := &l.rep.Candidates[i]; c.Live != nil && c.Live.Stage == result.StageWaiting {
				c.Live = &evaluator.Live{Stage: result.StageWaiting, Holder: ev.Message}
			}
		}
	case evaluator.EventSample:
		if c := l.candidate(ev); c != nil && c.Live != nil {
			pair := min(max(ev.Pair, c.Live.Pair)+1, l.maxPairs)
			c.Live = &evaluator.Live{Stage: result.StageMeasuring, Pair: pair, MaxPairs: l.maxPairs}
		}
	}
}

// candidate is the candidate ev is about, or nil.
func (l *liveReport) candidate(ev evaluator.Event) *evaluator.CandidateResult {
	if ev.Index < 0 || ev.Index >= len(l.rep.Candidates) || l.rep.Candidates[ev.Index].Name != ev.Candidate {
		return nil
	}
	return &l.rep.Candidates[ev.Index]
}

// stage moves ev's candidate, unless it is settled, to stage ("" leaves it).
func (l *liveReport) stage(ev evaluator.Event, stage string) {
	c := l.candidate(ev)
	if c == nil || stage == "" || c.Live == nil {
		return
	}
	c.Live = &evaluator.Live{Stage: stage}
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
