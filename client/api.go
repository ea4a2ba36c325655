package client

import (
	"encoding/json"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator"
)

// JobRequest is the body of POST /v1/jobs: a job as the CLI takes it.
// Paths are on the daemon's machine and must be absolute.
type JobRequest struct {
	Repo string `json:"repo"`           // any directory in the git repository
	Base string `json:"base,omitempty"` // a revision; "" is HEAD
	// Candidates are inline candidates, each one line of the JSONL
	// candidates format: {"name": ..., "patch": ...} or {"name": ..., "files": {...}}.
	Candidates []json.RawMessage `json:"candidates,omitempty"`
	// CandidatePaths are patch files, JSONL files or directories, as --candidates takes.
	CandidatePaths []string `json:"candidate_paths,omitempty"`
	// CandidateRefs are revisions whose diff from base is a candidate, as --candidate-ref takes.
	CandidateRefs []string   `json:"candidate_refs,omitempty"`
	Options       JobOptions `json:"options"`
	// Kind is recorded in the store: run (the default) or watch.
	Kind string `json:"kind,omitempty"`
	// Session groups a watch session's jobs: a new job of a session cancels
	// the session's older jobs that have not ended.
	Session string `json:"session,omitempty"`
}

// JobOptions are the options of a job, as the CLI's flags give them.
// Durations are Go durations ("90s", "10m").
type JobOptions struct {
	Test                string   `json:"test,omitempty"`
	TestReports         []string `json:"test_reports,omitempty"`
	Bench               string   `json:"bench,omitempty"` // "none" skips the benchmark phase
	BenchFormat         string   `json:"bench_format,omitempty"`
	BenchReports        []string `json:"bench_reports,omitempty"`
	Setup               string   `json:"setup,omitempty"`
	CopyFiles           []string `json:"copy_files,omitempty"` // relative to the repository root
	Timeout             string   `json:"timeout,omitempty"`
	MinSpeedup          float64  `json:"min_speedup,omitempty"` // percent
	MinPairs            int      `json:"min_pairs,omitempty"`
	MaxPairs            int      `json:"max_pairs,omitempty"`
	BenchBudget         string   `json:"bench_budget,omitempty"`
	Metric              string   `json:"metric,omitempty"` // wall or cpu
	BenchFilter         string   `json:"bench_filter,omitempty"`
	BenchArgs           []string `json:"bench_args,omitempty"`
	BuildFlags          []string `json:"build_flags,omitempty"`
	NoPin               bool     `json:"no_pin,omitempty"`
	MemLimit            int64    `json:"mem_limit,omitempty"` // bytes per process; 0 is none
	Sandbox             string   `json:"sandbox,omitempty"`   // auto, on, off
	SandboxNet          bool     `json:"sandbox_net,omitempty"`
	NoiseCheck          bool     `json:"noise_check,omitempty"`
	All                 bool     `json:"all,omitempty"`
	TrustCandidateTests bool     `json:"trust_candidate_tests,omitempty"`
	NoCache             bool     `json:"no_cache,omitempty"` // reuse nothing from earlier jobs (the result cache)
	Quick               bool     `json:"quick,omitempty"`    // a first look a later job refines: the budget may stop a benchmark before any claim
	NoProfile           bool     `json:"no_profile,omitempty"`
	ProfileCmd          string   `json:"profile_cmd,omitempty"`
	Parallel            int      `json:"parallel,omitempty"` // most slots this job may hold; 0 is the daemon's budget
	// Env is set for the job's test, bench and setup commands: the client's
	// values of DefaultEnv and of what --env adds. The daemon drops a
	// DefaultEnv name its policy does not allow, and refuses another.
	Env    map[string]string `json:"env,omitempty"`
	Config json.RawMessage   `json:"config,omitempty"` // the client's effective configuration, recorded as is
}

// Job is a job as the daemon lists it, and the body of GET /v1/jobs/{id}.
type Job struct {
	ID        string     `json:"id"`
	Seq       int64      `json:"seq"`
	Repo      string     `json:"repo"`
	Base      string     `json:"base"`
	State     string     `json:"state"` // queued, running, finished, failed, cancelled
	Submitted time.Time  `json:"submitted"`
	Started   *time.Time `json:"started,omitempty"`
	Finished  *time.Time `json:"finished,omitempty"`
	Attempts  int        `json:"attempts"`
	// RunID is the job's id in the repository's store, where optimizer
	// history, show and report find it.
	RunID string `json:"run_id,omitempty"`
	Error string `json:"error,omitempty"`
	// Report is the JSON report contract: partial while the job runs, whole
	// once it has ended; absent before it starts.
	Report *evaluator.Report `json:"report,omitempty"`
}

// Ended reports whether the job is in a final state.
func (j Job) Ended() bool {
	switch j.State {
	case "finished", "failed", "cancelled":
		return true
	}
	return false
}

// Submitted is the body of the 202 answer to POST /v1/jobs.
type Submitted struct {
	ID  string `json:"id"`
	Seq int64  `json:"seq"`
}

// JobList is the body of GET /v1/jobs: newest first. Next, when set, is the
// value of ?before= that gives the next page.
type JobList struct {
	Jobs []Job `json:"jobs"`
	Next int64 `json:"next,omitempty"`
}

// Event is one event of a job, as GET /v1/jobs/{id}/events streams it: the
// same events the CLI's progress display shows. Seq is the SSE id: unique
// and increasing across the daemon's life.
type Event struct {
	Seq       uint64                     `json:"seq"`
	Job       string                     `json:"job"`
	Kind      string                     `json:"kind"`
	Time      time.Time                  `json:"time"`
	Phase     string                     `json:"phase,omitempty"`
	Candidate string                     `json:"candidate,omitempty"`
	Index     int                        `json:"index"`
	Done      int                        `json:"done"`
	Total     int                        `json:"total"`
	Message   string                     `json:"message,omitempty"`
	Result    *evaluator.CandidateResult `json:"result,omitempty"`
	// Since and AtBase are, for a "stuck" event, when the test started and
	// how long it took at base; AtBase is, for a "baseline" event, how long
	// base's tests ran (from the cache, the run cached).
	Since  time.Time     `json:"since,omitzero"`
	AtBase time.Duration `json:"at_base,omitempty"`
	// What a client's ETA (package eta) reads besides: for a "sample"
	// event, the pair's number, its base sample time and the pairs the
	// benchmark is on course to take; for a "job-start" event, the pairs
	// of earlier jobs like it, by candidate, and the job's slots.
	Pair       int                       `json:"pair,omitempty"`
	BaseSample time.Duration             `json:"base_sample,omitempty"`
	Forecast   int                       `json:"forecast,omitempty"`
	History    []evaluator.PastBenchmark `json:"history,omitempty"`
	Slots      int                       `json:"slots,omitempty"`
}

// Event kinds the daemon adds to the evaluator's.
const (
	// EventQueued: the job was accepted. Message is its state.
	EventQueued = "queued"
	// EventEnded: the job reached a final state, named by Message; its
	// report can be read. It is a job's last event.
	EventEnded = "ended"
)

// FromEvaluator converts an evaluator event of job id.
func FromEvaluator(id string, e evaluator.Event) Event {
	return Event{Job: id, Kind: string(e.Kind), Time: e.Time, Phase: e.Phase, Candidate: e.Candidate,
		Index: e.Index, Done: e.Done, Total: e.Total, Message: e.Message, Result: e.Result, Since: e.Since, AtBase: e.AtBase,
		Pair: e.Pair, BaseSample: e.BaseSample, Forecast: e.Forecast, History: e.History, Slots: e.Slots}
}

// Evaluator converts e back into the evaluator's event.
func (e Event) Evaluator() evaluator.Event {
	return evaluator.Event{Kind: evaluator.EventKind(e.Kind), Time: e.Time, Phase: e.Phase, Candidate: e.Candidate,
		Index: e.Index, Done: e.Done, Total: e.Total, Message: e.Message, Result: e.Result, Since: e.Since, AtBase: e.AtBase,
		Pair: e.Pair, BaseSample: e.BaseSample, Forecast: e.Forecast, History: e.History, Slots: e.Slots}
}

// Health is the body of GET /v1/health.
type Health struct {
	Status  string `json:"status"` // ok
	PID     int    `json:"pid"`
	Queued  int    `json:"queued"`
	Running int    `json:"running"`
	Slots   int    `json:"slots"` // the machine-wide slot budget
}

// Error is the body of every error answer.
type Error struct {
	Error string `json:"error"`
	// Field names what to fix in the request, as a JSON path
	// ("options.timeout", "candidates[2].files"), when one field is at fault.
	Field string `json:"field,omitempty"`
}
