package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestApply_AlteredKeptChange edits a candidate's kept change after the job,
// as a hostile test could have, and checks that apply refuses it and leaves
// the working tree alone; the untouched change of another candidate applies.
func TestApply_AlteredKeptChange(t *testing.T) {
	repo, _ := newShellRepo(t, 0)
	cands := filepath.Join(t.TempDir(), "c.jsonl")
	os.WriteFile(cands, []byte(`{"name": "good", "files": {"notes.txt": "good\n"}}
{"name": "other", "files": {"cand": "1\n"}}
`), 0o644)
	rep := decodeJSONReport(t, runOK(t, exitOK, "--repo", repo, "--candidates", cands, "-j", "1", "--format", "json",
		"--test", "sh test.sh", "--bench", "none"))
	kept, err := filepath.Glob(filepath.Join(repo, ".git", "optimizer", "artifacts", rep.Job, "candidates", "*.json"))
	if err != nil || len(kept) != 2 {
		t.Fatalf("kept changes %v (%v), want two", kept, err)
	}
	altered := false
	for _, f := range kept {
		b, _ := os.ReadFile(f)
		if strings.Contains(string(b), `"good"`) {
			os.WriteFile(f, []byte(strings.Replace(string(b), `good\n`, `never evaluated\n`, 1)), 0o644)
			altered = true
		}
	}
	if !altered {
		t.Fatalf("no kept change names good: %v", kept)
	}
	before := snapshot(t, repo)
	runOK(t, exitError, "apply", "--repo", repo, rep.Job, "good")
	if diff := before.diff(snapshot(t, repo)); diff != "" {
		t.Fatalf("a refused apply changed the repo:\n%s", diff)
	}
	runOK(t, exitOK, "apply", "--repo", repo, rep.Job, "other")
	if b, _ := os.ReadFile(filepath.Join(repo, "cand")); string(b) != "1\n" {
		t.Errorf("cand is %q after applying other, want %q", b, "1\n")
	}
}
