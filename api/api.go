// Package api holds the daemon's HTTP API (/v1) as Go types: the requests
// and answers that package client sends and package daemon decodes. So the
// two cannot drift apart. It holds the rules both ends share too: the
// environment a job gets by default, the socket directory's owner. The
// OpenAPI document
// the daemon serves at /v1/openapi.json describes them. A job's settings
// are a jobspec.Spec, the request's options.
package api

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/optimizer-dev/optimizer/jobspec"
	"github.com/optimizer-dev/optimizer/result"
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
	CandidateRefs []string     `json:"candidate_refs,omitempty"`
	Options       jobspec.Spec `json:"options"`
	// Kind is recorded in the store: run (the default) or watch.
	Kind string `json:"kind,omitempty"`
	// Session groups a watch session's jobs: a new job of a session cancels
	// the session's older jobs that have not ended.
	Session string `json:"session,omitempty"`
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
	Report *result.Report `json:"report,omitempty"`
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
	Seq       uint64                  `json:"seq"`
	Job       string                  `json:"job"`
	Kind      string                  `json:"kind"`
	Time      time.Time               `json:"time"`
	Phase     string                  `json:"phase,omitempty"`
	Candidate string                  `json:"candidate,omitempty"`
	Index     int                     `json:"index"`
	Done      int                     `json:"done"`
	Total     int                     `json:"total"`
	Message   string                  `json:"message,omitempty"`
	Result    *result.CandidateResult `json:"result,omitempty"`
	// Since and AtBase are, for a "stuck" event, when the test started and
	// how long it took at base. For a "baseline" event, AtBase is how long
	// base's tests ran (from the cache, the run cached).
	Since  time.Time     `json:"since,omitzero"`
	AtBase time.Duration `json:"at_base,omitempty"`
	// What a client's ETA (package eta) reads besides. A "sample" event has
	// the pair's number, its base sample time, and the pairs the benchmark
	// is on course to take. It also has what the benchmark is to take after
	// them (the hack check). A "job-start" event has the pairs of earlier
	// jobs like it, by candidate, the job's slots and its min speedup.
	Pair       int                    `json:"pair,omitempty"`
	BaseSample time.Duration          `json:"base_sample,omitempty"`
	After      time.Duration          `json:"after,omitempty"`
	Forecast   int                    `json:"forecast,omitempty"`
	History    []result.PastBenchmark `json:"history,omitempty"`
	Slots      int                    `json:"slots,omitempty"`
	MinSpeedup float64                `json:"min_speedup,omitempty"`
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
func FromEvaluator(id string, e result.Event) Event {
	return Event{Job: id, Kind: string(e.Kind), Time: e.Time, Phase: e.Phase, Candidate: e.Candidate,
		Index: e.Index, Done: e.Done, Total: e.Total, Message: e.Message, Result: e.Result, Since: e.Since, AtBase: e.AtBase,
		Pair: e.Pair, BaseSample: e.BaseSample, After: e.After, Forecast: e.Forecast, History: e.History, Slots: e.Slots, MinSpeedup: e.MinSpeedup}
}

// Evaluator converts e back into the evaluator's event.
func (e Event) Evaluator() result.Event {
	return result.Event{Kind: result.EventKind(e.Kind), Time: e.Time, Phase: e.Phase, Candidate: e.Candidate,
		Index: e.Index, Done: e.Done, Total: e.Total, Message: e.Message, Result: e.Result, Since: e.Since, AtBase: e.AtBase,
		Pair: e.Pair, BaseSample: e.BaseSample, After: e.After, Forecast: e.Forecast, History: e.History, Slots: e.Slots, MinSpeedup: e.MinSpeedup}
}

// Health is the body of GET /v1/health.
type Health struct {
	Status  string `json:"status"` // ok
	PID     int    `json:"pid"`
	Queued  int    `json:"queued"`
	Running int    `json:"running"`
	Slots   int    `json:"slots"` // the machine-wide slot budget
}

// Error is the body of every error answer. A client returns it, with the
// answer's HTTP status, as the error of the call.
type Error struct {
	Status  int    `json:"-"`
	Message string `json:"error"`
	// Field names what to fix in the request, as a JSON path
	// ("options.timeout", "candidates[2].files"), when one field is at fault.
	Field string `json:"field,omitempty"`
}

func (e *Error) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("daemon: %s (field %s; HTTP %d)", e.Message, e.Field, e.Status)
	}
	return fmt.Sprintf("daemon: %s (HTTP %d)", e.Message, e.Status)
}
