package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/profiler"
)

const jobDoc = `A job's state, its verdicts so far and the events it has sent so far (what the
progress notifications of evaluate said). Use it after evaluate with wait false.`

const reportDoc = `A job's whole report: json (the report's JSON contract, every benchmark with its
interval), markdown or text (what optimizer prints).`

const profileDoc = `The winner's CPU profile, base against winner: the hottest functions with their
share of the samples on each side, and per-line time in the functions the winner
changed, with the source lines. Empty when the job has no winner.`

// JobIn names a job.
type JobIn struct {
	Job string `json:"job" jsonschema:"the job's id, as evaluate returned it"`
}

// EventOut is one event of a job.
type EventOut struct {
	Time      time.Time `json:"time"`
	Kind      string    `json:"kind"`
	Candidate string    `json:"candidate,omitempty"`
	Text      string    `json:"text"`
}

// JobOut is the job tool's result: evaluate's, with the events so far.
type JobOut struct {
	EvaluateOut
	Events []EventOut `json:"events"`
}

// eventsIdle is how long job waits for more of a running job's events
// before it answers with those it has: the stored ones come at once.
const eventsIdle = 300 * time.Millisecond

func (t *tools) job(ctx context.Context, _ *sdk.CallToolRequest, in JobIn) (*sdk.CallToolResult, JobOut, error) {
	j, err := t.opts.Jobs.Job(ctx, in.Job)
	if err != nil {
		return nil, JobOut{}, callError("read job "+in.Job, err)
	}
	out := JobOut{EvaluateOut: summarise(j), Events: []EventOut{}}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	idle := time.AfterFunc(eventsIdle, cancel)
	err = t.opts.Jobs.Events(sctx, in.Job, 0, func(e api.Event) error {
		idle.Reset(eventsIdle)
		text := describe(e.Evaluator())
		switch e.Kind {
		case api.EventQueued:
			text = "queued"
		case api.EventEnded:
			text = "ended: " + e.Message
		}
		if text != "" {
			out.Events = append(out.Events, EventOut{Time: e.Time, Kind: e.Kind, Candidate: e.Candidate, Text: text})
		}
		return nil
	})
	if err != nil && sctx.Err() == nil {
		return nil, JobOut{}, callError("read the events of job "+in.Job, err)
	}
	return nil, out, nil
}

// ReportIn asks for a job's report in a format.
type ReportIn struct {
	Job    string `json:"job" jsonschema:"the job's id"`
	Format string `json:"format,omitempty" jsonschema:"json (default), markdown or text"`
}

// ReportOut is a report: JSON as an object, the others as text.
type ReportOut struct {
	Job    string         `json:"job"`
	Format string         `json:"format"`
	Report map[string]any `json:"report,omitempty" jsonschema:"the report's JSON contract, for format json"`
	Text   string         `json:"text,omitempty" jsonschema:"the report, for format markdown or text"`
}

func (t *tools) report(ctx context.Context, _ *sdk.CallToolRequest, in ReportIn) (*sdk.CallToolResult, ReportOut, error) {
	format := in.Format
	switch format {
	case "":
		format = "json"
	case "json", "markdown", "text":
	default:
		return nil, ReportOut{}, fmt.Errorf("format %q: want json, markdown or text", in.Format)
	}
	b, err := t.opts.Jobs.Report(ctx, in.Job, format)
	if err != nil {
		return nil, ReportOut{}, callError("read the report of job "+in.Job, err)
	}
	out := ReportOut{Job: in.Job, Format: format}
	if format == "json" {
		if err := json.Unmarshal(b, &out.Report); err != nil {
			return nil, ReportOut{}, fmt.Errorf("read the report of job %s: %w", in.Job, err)
		}
	} else {
		out.Text = string(b)
	}
	res := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(b)}}}
	return res, out, nil
}

// ProfileOut is the profile tool's result.
type ProfileOut struct {
	Job    string `json:"job"`
	Winner string `json:"winner,omitempty"`
	// Note says why there is no profile, when there is none.
	Note    string            `json:"note,omitempty"`
	Profile *profiler.Summary `json:"profile,omitempty"`
}

func (t *tools) profile(ctx context.Context, _ *sdk.CallToolRequest, in JobIn) (*sdk.CallToolResult, ProfileOut, error) {
	j, err := t.opts.Jobs.Job(ctx, in.Job)
	if err != nil {
		return nil, ProfileOut{}, callError("read job "+in.Job, err)
	}
	out := ProfileOut{Job: in.Job}
	rep := j.Report
	switch {
	case rep == nil:
		return nil, ProfileOut{}, fmt.Errorf("job %s is %s: it has no report yet", in.Job, j.State)
	case !j.Ended():
		return nil, ProfileOut{}, fmt.Errorf("job %s is %s: the winner is profiled last; wait for it (job, or evaluate with wait)", in.Job, j.State)
	case rep.Winner == nil:
		out.Note = "the job has no winner: nothing was profiled"
		return nil, out, nil
	}
	out.Winner = *rep.Winner
	if rep.Profile == nil {
		out.Note = rep.ProfileNote
		if out.Note == "" {
			out.Note = "the winner has no profile"
		}
		return nil, out, nil
	}
	// The flame graph's frames are for drawing: hundreds of them would
	// crowd an agent's context, and Changes names what moved most.
	sum := *rep.Profile
	sum.Flame = nil
	out.Profile = &sum
	return nil, out, nil
}
