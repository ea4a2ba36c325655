package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/jobspec"
)

const evaluateDoc = `Judge candidates against base: run each one's tests, benchmark those that pass
against base in interleaved pairs, and give each a verdict: winner, faster, not-faster,
slower, mixed, suspect (faster by not doing the work: a result cached across benchmark
iterations, or a body the compiler removes; hacks says which), passed (no benchmark),
failed (with the failing tests and their output) or duplicate. Give several candidates at once: as a unified diff against base (patch),
as whole files (files: path to new content, null deletes), or as refs. Only winner and
faster mean faster. Sends progress notifications while it runs; with wait false it
returns the job's id at once (read it with job and report). Nothing is written to the
repository.`

// Candidate is one candidate of an evaluate call: a patch or whole files.
type Candidate struct {
	Name        string             `json:"name" jsonschema:"a unique name: letters, digits, dot, dash, underscore"`
	Patch       string             `json:"patch,omitempty" jsonschema:"a unified diff against base (git diff output)"`
	Files       map[string]*string `json:"files,omitempty" jsonschema:"whole files by slash path from the repository root; null deletes a file"`
	Explanation string             `json:"explanation,omitempty" jsonschema:"what the change does and why it should be faster"`
	Parent      string             `json:"parent,omitempty" jsonschema:"the candidate this one improves on, if any"`
}

// Settings are the job's options, as the CLI's flags give them.
type Settings struct {
	Test        string   `json:"test,omitempty" jsonschema:"the test command (sh -c in the repository root); default: go test for a Go module"`
	Bench       string   `json:"bench,omitempty" jsonschema:"the benchmark command; default: the Go benchmarks that run the changed code; none skips benchmarking"`
	BenchFilter string   `json:"bench_filter,omitempty" jsonschema:"a -bench regular expression selecting Go benchmarks"`
	Timeout     string   `json:"timeout,omitempty" jsonschema:"bound on one run of the tests, a Go duration such as 90s"`
	MinSpeedup  float64  `json:"min_speedup,omitempty" jsonschema:"the speedup in percent a candidate needs to be called faster (default 5)"`
	MinPairs    int      `json:"min_pairs,omitempty" jsonschema:"fewest base/candidate benchmark pairs"`
	MaxPairs    int      `json:"max_pairs,omitempty" jsonschema:"most base/candidate benchmark pairs"`
	BenchBudget string   `json:"bench_budget,omitempty" jsonschema:"time budget of one candidate's benchmark, a Go duration"`
	Metric      string   `json:"metric,omitempty" jsonschema:"the metric the verdict rests on: wall or cpu (time), rss (a bench command's peak memory), allocs or bytes (Go's allocs/op or B/op)"`
	BuildFlags  []string `json:"build_flags,omitempty" jsonschema:"go build flags for the benchmark binaries"`
	Sandbox     string   `json:"sandbox,omitempty" jsonschema:"auto, on or off; the server's policy decides what is allowed"`
	NoProfile   bool     `json:"no_profile,omitempty" jsonschema:"skip profiling the winner"`
	NoCache     bool     `json:"no_cache,omitempty" jsonschema:"reuse no outcome of earlier jobs"`
	Parallel    int      `json:"parallel,omitempty" jsonschema:"most candidates tested at once; 0 is the server's choice"`
}

// EvaluateIn is the evaluate tool's input.
type EvaluateIn struct {
	Repo       string      `json:"repo,omitempty" jsonschema:"the repository: an absolute path; default: the one the server serves"`
	Base       string      `json:"base,omitempty" jsonschema:"the revision candidates are compared with; default HEAD"`
	Candidates []Candidate `json:"candidates,omitempty" jsonschema:"candidates given inline"`
	Refs       []string    `json:"refs,omitempty" jsonschema:"revisions whose diff from base is a candidate each"`
	Options    Settings    `json:"options,omitzero" jsonschema:"the job's options"`
	Wait       *bool       `json:"wait,omitempty" jsonschema:"wait for the verdicts (default true); false returns the job's id at once"`
}

// Verdict is one candidate's outcome, in brief.
type Verdict struct {
	Name        string      `json:"name"`
	Verdict     string      `json:"verdict" jsonschema:"winner, faster, overfit, suspect, not-faster, mixed, slower, passed, duplicate, failed or pending"`
	Speedup     float64     `json:"speedup,omitempty" jsonschema:"base time over candidate time (geometric mean over benchmarks)"`
	CI          []float64   `json:"ci,omitempty" jsonschema:"the speedup's confidence interval, low and high"`
	Pairs       int         `json:"pairs,omitempty"`
	FasterOn    []string    `json:"faster_on,omitempty"`
	SlowerOn    []string    `json:"slower_on,omitempty"`
	DuplicateOf string      `json:"duplicate_of,omitempty"`
	Note        string      `json:"note,omitempty"`
	Unsettled   bool        `json:"unsettled,omitempty" jsonschema:"measuring stopped before the verdict was settled"`
	Failure     *FailureOut `json:"failure,omitempty"`
	Hacks       []HackOut   `json:"hacks,omitempty" jsonschema:"for a suspect candidate: what shows its speedup does not come from doing the work"`
}

// HackOut is one sign that a speedup comes from not doing the work.
type HackOut struct {
	Bench  string `json:"bench"`
	Kind   string `json:"kind" jsonschema:"cached (the first iteration costs what base's do, the rest almost nothing) or removed (an iteration costs no more than an empty loop's)"`
	Detail string `json:"detail"`
}

// FailureOut is why a candidate failed: what a generator needs to repair it.
type FailureOut struct {
	Kind    string   `json:"kind" jsonschema:"apply, build, test, timeout or error"`
	Tests   []string `json:"tests,omitempty"`
	Message string   `json:"message"`
	Output  string   `json:"output,omitempty"`
}

// EvaluateOut is the evaluate tool's result.
type EvaluateOut struct {
	Job      string    `json:"job" jsonschema:"the job's id: give it to job, report and profile"`
	RunID    string    `json:"run_id,omitempty" jsonschema:"the job's id in the repository's store (optimizer show, apply)"`
	State    string    `json:"state" jsonschema:"queued, running, finished, failed or cancelled"`
	Error    string    `json:"error,omitempty"`
	Winner   string    `json:"winner,omitempty" jsonschema:"the winner's name; empty when nothing is significantly faster"`
	Verdicts []Verdict `json:"verdicts"`
	Warnings []string  `json:"warnings,omitempty"`
}

func (t *tools) evaluate(ctx context.Context, req *sdk.CallToolRequest, in EvaluateIn) (*sdk.CallToolResult, EvaluateOut, error) {
	jr, err := t.jobRequest(in)
	if err != nil {
		return nil, EvaluateOut{}, err
	}
	sub, err := t.opts.Jobs.Submit(ctx, jr)
	if err != nil {
		return nil, EvaluateOut{}, callError("submit the job", err)
	}
	if in.Wait != nil && !*in.Wait {
		j, err := t.opts.Jobs.Job(ctx, sub.ID)
		if err != nil {
			return nil, EvaluateOut{}, callError("read job "+sub.ID, err)
		}
		return nil, summarise(j), nil
	}
	p := newProgress(ctx, req)
	j, err := t.opts.Jobs.Follow(ctx, sub.ID, p.send)
	if j.ID == "" {
		if err == nil {
			err = errors.New("no job")
		}
		return nil, EvaluateOut{}, callError("follow job "+sub.ID, err)
	}
	out := summarise(j)
	if err != nil && out.Error == "" {
		out.Error = err.Error()
	}
	return nil, out, nil
}

// jobRequest is the daemon's request for in.
func (t *tools) jobRequest(in EvaluateIn) (api.JobRequest, error) {
	repo, err := t.repo(in.Repo)
	if err != nil {
		return api.JobRequest{}, err
	}
	if len(in.Candidates)+len(in.Refs) == 0 {
		return api.JobRequest{}, errors.New("no candidates: give candidates (each a name and a patch or files) or refs")
	}
	o := in.Options
	var timeout, budget jobspec.Duration
	for _, d := range []struct {
		field string
		in    string
		out   *jobspec.Duration
	}{{"options.timeout", o.Timeout, &timeout}, {"options.bench_budget", o.BenchBudget, &budget}} {
		if d.in == "" {
			continue
		}
		if *d.out, err = jobspec.ParseDuration(d.in); err != nil {
			return api.JobRequest{}, fmt.Errorf("%w (%s)", err, d.field)
		}
	}
	jr := api.JobRequest{Repo: repo, Base: in.Base, CandidateRefs: in.Refs, Kind: "run", Options: jobspec.Spec{
		Test: o.Test, Bench: o.Bench, BenchFilter: o.BenchFilter, Timeout: timeout, MinSpeedup: o.MinSpeedup,
		MinPairs: o.MinPairs, MaxPairs: o.MaxPairs, BenchBudget: budget, Metric: o.Metric, BuildFlags: o.BuildFlags,
		Sandbox: o.Sandbox, NoProfile: o.NoProfile, NoCache: o.NoCache, Parallel: o.Parallel,
	}}
	for i, c := range in.Candidates {
		if (c.Patch == "") == (len(c.Files) == 0) {
			return jr, fmt.Errorf("candidates[%d] (%s): give either a patch or files, not both or neither", i, c.Name)
		}
		line, err := json.Marshal(c)
		if err != nil {
			return jr, err
		}
		jr.Candidates = append(jr.Candidates, line)
	}
	return jr, nil
}

// summarise is j's verdicts so far.
func summarise(j api.Job) EvaluateOut {
	out := EvaluateOut{Job: j.ID, RunID: j.RunID, State: j.State, Error: j.Error, Verdicts: []Verdict{}}
	rep := j.Report
	if rep == nil {
		return out
	}
	if rep.Winner != nil {
		out.Winner = *rep.Winner
	}
	out.Warnings = rep.Warnings
	for _, c := range rep.Candidates {
		v := Verdict{Name: c.Name, Verdict: string(c.Verdict), Speedup: c.Speedup, Pairs: c.Pairs, FasterOn: c.FasterOn,
			SlowerOn: c.SlowerOn, DuplicateOf: c.DuplicateOf, Note: c.Note, Unsettled: c.Unsettled}
		if c.CI != nil {
			v.CI = c.CI[:]
		}
		for _, h := range c.Hacks {
			v.Hacks = append(v.Hacks, HackOut{Bench: h.Bench, Kind: h.Kind, Detail: h.Detail})
		}
		if f := c.Failure; f != nil {
			v.Failure = &FailureOut{Kind: string(f.Kind), Tests: f.Tests, Message: f.Message, Output: f.Output}
		}
		out.Verdicts = append(out.Verdicts, v)
	}
	return out
}

// progressEvery bounds how often benchmark samples are reported: a
// benchmark measures many pairs a second.
const progressEvery = 2 * time.Second

// progress sends a call's job events to its client as progress
// notifications, when the client asked for them with a progress token.
type progress struct {
	ctx        context.Context
	req        *sdk.CallToolRequest
	token      any
	n          int
	lastSample time.Time
}

func newProgress(ctx context.Context, req *sdk.CallToolRequest) *progress {
	p := &progress{ctx: ctx, req: req}
	if req != nil && req.Params != nil {
		p.token = req.Params.GetProgressToken()
	}
	return p
}

func (p *progress) send(e evaluator.Event) {
	if p.token == nil || p.req.Session == nil {
		return
	}
	if e.Kind == evaluator.EventSample {
		if time.Since(p.lastSample) < progressEvery {
			return
		}
		p.lastSample = time.Now()
	}
	msg := describe(e)
	if msg == "" {
		return
	}
	p.n++
	p.req.Session.NotifyProgress(p.ctx, &sdk.ProgressNotificationParams{ProgressToken: p.token, Progress: float64(p.n), Message: msg})
}

// describe is one line saying what e means, "" for an event not worth one.
func describe(e evaluator.Event) string {
	count := ""
	if e.Total > 0 {
		count = fmt.Sprintf("[%d/%d] ", e.Done, e.Total)
	}
	switch e.Kind {
	case evaluator.EventJobStart:
		return fmt.Sprintf("%sjob started", count)
	case evaluator.EventBaseline:
		return count + "base's tests: " + e.Message
	case evaluator.EventPhase:
		return count + "phase " + e.Phase
	case evaluator.EventStart:
		return fmt.Sprintf("%s%s: %s", count, e.Candidate, e.Phase)
	case evaluator.EventTested:
		return fmt.Sprintf("%s%s: tests pass", count, e.Candidate)
	case evaluator.EventDone:
		if e.Result == nil {
			return ""
		}
		s := fmt.Sprintf("%s%s: %s", count, e.Candidate, e.Result.Verdict)
		if e.Result.Failure != nil {
			s += " (" + string(e.Result.Failure.Kind) + ")"
		}
		return s
	case evaluator.EventScope:
		if e.Candidate == "" { // the job's: for every candidate
			return count + e.Message
		}
		return fmt.Sprintf("%s%s: %s", count, e.Candidate, e.Message)
	case evaluator.EventSample:
		return fmt.Sprintf("%s%s: benchmark pair %d", count, e.Candidate, e.Pair)
	case evaluator.EventWarning:
		return "warning: " + e.Message
	case evaluator.EventWaiting:
		if e.Message == "" {
			return ""
		}
		return "waiting: " + e.Message
	case evaluator.EventJobDone:
		return count + "job done"
	}
	return ""
}
