package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRun_ResultCache runs the same job through the CLI again. The repeat
// reuses every candidate's test outcome, and its JSON and text reports say
// from which job. --no-cache runs everything again. The user's repository
// is untouched throughout.
func TestRun_ResultCache(t *testing.T) {
	repo, cands := newShellRepo(t, 0)
	before := snapshot(t, repo)
	args := []string{"--repo", repo, "--candidates", cands, "-j", "2", "--test", "sh test.sh", "--bench", "none"}
	type result struct {
		Job        string `json:"job"`
		Candidates []struct {
			Name       string `json:"name"`
			Verdict    string `json:"verdict"`
			ReusedFrom string `json:"reused_from"`
		} `json:"candidates"`
	}
	job := func(extra ...string) result {
		t.Helper()
		var r result
		out := runOK(t, exitOK, append(append(args, "--format", "json"), extra...)...)
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("report is not JSON: %v\n%s", err, out)
		}
		return r
	}
	first := job()
	for _, c := range first.Candidates {
		if c.ReusedFrom != "" {
			t.Errorf("first job: %s reused from %s", c.Name, c.ReusedFrom)
		}
	}
	repeat := job()
	for i, c := range repeat.Candidates {
		if c.ReusedFrom != first.Job || c.Verdict != first.Candidates[i].Verdict {
			t.Errorf("repeat: %s %s reused from %q; want %s reused from %s", c.Name, c.Verdict, c.ReusedFrom, first.Candidates[i].Verdict, first.Job)
		}
	}
	text := runOK(t, exitOK, args...)
	if want := "reused: its tests' outcome from job " + first.Job; strings.Count(text, want) != len(first.Candidates) {
		t.Errorf("text report: want %q under each candidate:\n%s", want, text)
	}
	for _, c := range job("--no-cache").Candidates {
		if c.ReusedFrom != "" {
			t.Errorf("--no-cache: %s reused from %s", c.Name, c.ReusedFrom)
		}
	}
	if diff := before.diff(snapshot(t, repo)); diff != "" {
		t.Errorf("the repository changed:\n%s", diff)
	}
}
