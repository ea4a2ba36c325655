package client

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/evaluator/candidate"
)

// Session is a watch session's evaluations on the daemon. Each is a job of
// the session (kind watch), so that the daemon cancels the session's older
// jobs when a newer save is submitted.
type Session struct {
	c  *Client
	id string
}

// NewSession starts a session of c's, with an id of its own.
func (c *Client) NewSession() *Session {
	var b [8]byte
	rand.Read(b[:])
	return &Session{c: c, id: "watch-" + hex.EncodeToString(b[:])}
}

// Evaluate is watch.Session's Evaluate through the daemon: it submits the
// job opts describes, sends its events to opts.Events as the job goes, and
// returns its report. The end of ctx cancels the job on the daemon. The
// candidates go inline (InlineCandidate), so they need not be on the
// daemon's disk.
func (s *Session) Evaluate(ctx context.Context, opts evaluator.Options) (*evaluator.Report, error) {
	req := JobRequest{Repo: opts.Repo, Base: opts.Base, Kind: "watch", Session: s.id, Options: JobOptionsOf(opts)}
	for _, cand := range opts.Candidates {
		line, err := InlineCandidate(cand)
		if err != nil {
			return nil, err
		}
		req.Candidates = append(req.Candidates, line)
	}
	sub, err := s.c.Submit(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("submit to the daemon: %w", err)
	}
	var each func(evaluator.Event)
	if opts.Events != nil {
		each = func(e evaluator.Event) { opts.Events <- e }
	}
	j, err := s.c.Follow(ctx, sub.ID, each)
	return j.Report, err
}

// InlineCandidate is c as one line of the JSONL candidates format, for
// JobRequest.Candidates. A candidate with both a patch and files has no
// such line.
func InlineCandidate(c candidate.Candidate) (json.RawMessage, error) {
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

// envMap is KEY=VALUE pairs as a map; nil for none.
func envMap(env []string) map[string]string {
	if len(env) == 0 {
		return nil
	}
	m := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

// JobOptionsOf is the daemon's form of an evaluator's options: the
// inverse of the daemon's reading of JobOptions.
func JobOptionsOf(o evaluator.Options) JobOptions {
	return JobOptions{
		Test: o.Test, TestReports: o.TestReports, Bench: o.Bench,
		BenchFormat: o.BenchFormat, BenchReports: o.BenchReports, Setup: o.Setup, CopyFiles: o.CopyFiles,
		Timeout: o.Timeout.String(), MinSpeedup: o.MinSpeedup * 100, MinPairs: o.MinPairs, MaxPairs: o.MaxPairs,
		BenchBudget: o.Budget.String(), Metric: string(o.Metric), BenchFilter: o.BenchFilter, BenchArgs: o.BenchArgs,
		BuildFlags: o.BuildFlags, NoPin: !o.Pin, MemLimit: o.MemLimit, Sandbox: string(o.Sandbox), SandboxNet: o.SandboxNet,
		NoiseCheck: o.NoiseCheck, All: o.All, TrustCandidateTests: o.TrustCandidateTests,
		NoProfile: !o.Profile && o.ProfileCmd == "", ProfileCmd: o.ProfileCmd, Parallel: o.Parallel, Config: o.Config,
		NoCache: o.NoCache, Quick: o.Quick, Env: envMap(o.Env),
	}
}
