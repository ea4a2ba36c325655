package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/optimizer-dev/optimizer/client"
	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/evaluator/candidate"
)

// daemonEvaluate is a watch session's Evaluate through a daemon: each
// evaluation is a job of the session (kind watch), so that the daemon
// cancels the session's older jobs when a newer save is submitted; its
// events feed the session's display; the end of ctx cancels it there.
func daemonEvaluate(c *client.Client) func(ctx context.Context, opts evaluator.Options) (*evaluator.Report, error) {
	var b [8]byte
	rand.Read(b[:])
	session := "watch-" + hex.EncodeToString(b[:])
	return func(ctx context.Context, opts evaluator.Options) (*evaluator.Report, error) {
		req := client.JobRequest{Repo: opts.Repo, Base: opts.Base, Kind: "watch", Session: session, Options: jobOptionsOf(opts)}
		for _, cand := range opts.Candidates {
			line, err := inlineCandidate(cand)
			if err != nil {
				return nil, err
			}
			req.Candidates = append(req.Candidates, line)
		}
		sub, err := c.Submit(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("submit to the daemon: %w", err)
		}
		err = c.Events(ctx, sub.ID, 0, func(e client.Event) error {
			if opts.Events != nil && e.Kind != client.EventQueued && e.Kind != client.EventEnded {
				opts.Events <- e.Evaluator()
			}
			return nil
		})
		bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelTimeout)
		defer cancel()
		if ctx.Err() != nil {
			j, cerr := c.Cancel(bg, sub.ID)
			var apiErr *client.APIError
			if cerr != nil && !(errors.As(cerr, &apiErr) && apiErr.Status == 409) { // 409: it had ended
				return nil, fmt.Errorf("cancel job %s on the daemon: %w", sub.ID, cerr)
			}
			return j.Report, ctx.Err()
		}
		if err != nil {
			return nil, fmt.Errorf("follow job %s: %w", sub.ID, err)
		}
		j, err := c.Job(bg, sub.ID)
		switch {
		case err != nil:
			return nil, fmt.Errorf("read job %s: %w", sub.ID, err)
		case j.Error != "":
			return j.Report, errors.New(j.Error)
		}
		return j.Report, nil
	}
}

// inlineCandidate is c as one line of the JSONL candidates format.
func inlineCandidate(c candidate.Candidate) (json.RawMessage, error) {
	line := map[string]any{"name": c.Name}
	if c.Parent != "" {
		line["parent"] = c.Parent
	}
	if c.Explanation != "" {
		line["explanation"] = c.Explanation
	}
	switch {
	case len(c.Patch) > 0 && (len(c.Files) > 0 || len(c.Deleted) > 0):
		return nil, fmt.Errorf("candidate %s has both a patch and files, which a daemon's job cannot carry: run with --no-daemon", c.Name)
	case len(c.Patch) > 0:
		line["patch"] = string(c.Patch)
	default:
		files := map[string]any{}
		for p, b := range c.Files {
			files[p] = string(b)
		}
		for _, p := range c.Deleted {
			files[p] = nil
		}
		line["files"] = files
	}
	return json.Marshal(line)
}

// jobOptionsOf is the daemon's form of an evaluator's options.
func jobOptionsOf(o evaluator.Options) client.JobOptions {
	return client.JobOptions{
		Test: o.Test, Bench: o.Bench, Setup: o.Setup, CopyFiles: o.CopyFiles,
		Timeout: o.Timeout.String(), MinSpeedup: o.MinSpeedup * 100, MinPairs: o.MinPairs, MaxPairs: o.MaxPairs,
		BenchBudget: o.Budget.String(), Metric: string(o.Metric), BenchFilter: o.BenchFilter, BenchArgs: o.BenchArgs,
		BuildFlags: o.BuildFlags, NoPin: !o.Pin, MemLimit: o.MemLimit, Sandbox: string(o.Sandbox), SandboxNet: o.SandboxNet,
		NoiseCheck: o.NoiseCheck, All: o.All, TrustCandidateTests: o.TrustCandidateTests,
		NoProfile: !o.Profile && o.ProfileCmd == "", ProfileCmd: o.ProfileCmd, Parallel: o.Parallel, Config: o.Config,
		NoCache: o.NoCache,
	}
}
