package client

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/jobspec"
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

// Evaluate is a watch session's job through the daemon. It submits the
// candidates against base in repo with the settings of spec, and returns
// its report. It sends the job's events to events (when not nil) as it
// goes. The end of ctx cancels the job on the daemon. The candidates go
// inline (InlineCandidate), so they need not be on the daemon's disk.
func (s *Session) Evaluate(ctx context.Context, repo, base string, spec jobspec.Spec, cands []candidate.Candidate, events chan<- evaluator.Event) (*evaluator.Report, error) {
	req := api.JobRequest{Repo: repo, Base: base, Kind: "watch", Session: s.id, Options: spec}
	for _, cand := range cands {
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
	if events != nil {
		each = func(e evaluator.Event) { events <- e }
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
