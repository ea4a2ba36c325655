package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/store"
)

// TestApply_AlteredKeptChange edits a candidate's kept change after the job,
// as a hostile test could have. It checks that apply refuses it and leaves
// the working tree alone. The untouched change of another candidate applies.
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

// TestApply_ForgedKeptChangeAndStore performs the attack of item 6 of
// issue 33. After the job, the kept change of good and its content id in
// the store are both rewritten to code that was never evaluated, so that
// they agree. Apply refuses, because the kept change's seal no longer
// checks out, and the repo stays as it was.
func TestApply_ForgedKeptChangeAndStore(t *testing.T) {
	ctx := context.Background()
	repo, _ := newShellRepo(t, 0)
	cands := filepath.Join(t.TempDir(), "c.jsonl")
	os.WriteFile(cands, []byte(`{"name": "good", "files": {"notes.txt": "good\n"}}`+"\n"), 0o644)
	rep := decodeJSONReport(t, runOK(t, exitOK, "--repo", repo, "--candidates", cands, "-j", "1", "--format", "json",
		"--test", "sh test.sh", "--bench", "none"))
	kept := filepath.Join(repo, ".git", "optimizer", "artifacts", rep.Job, "candidates", "good.json")
	b, err := os.ReadFile(kept)
	if err != nil {
		t.Fatal(err)
	}
	forged := strings.Replace(string(b), `good\n`, `never evaluated\n`, 1)
	if forged == string(b) {
		t.Fatalf("kept change %s does not hold good's file: %s", kept, b)
	}
	os.WriteFile(kept, []byte(forged), 0o644)

	db, err := store.Open(ctx, filepath.Join(repo, ".git", "optimizer", "optimizer.db"))
	if err != nil {
		t.Fatal(err)
	}
	j, err := db.Job(ctx, rep.Job)
	if err != nil {
		t.Fatal(err)
	}
	evil := candidate.Candidate{Name: "good", Files: map[string][]byte{"notes.txt": []byte("never evaluated\n")}}
	id, err := candidate.TreeID(ctx, repo, j.Base, evil)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.Candidates(ctx, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		row.ContentID = id
		if err := db.UpdateCandidate(ctx, row); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	before := snapshot(t, repo)
	err = run(ctx, []string{"apply", "--repo", repo, rep.Job, "good"}, io.Discard, io.Discard)
	if exitCode(err) != exitError || !strings.Contains(fmt.Sprint(err), "seal does not match") {
		t.Errorf("apply of the forgery: exit %d (%v), want %d and the seal named", exitCode(err), err, exitError)
	}
	if diff := before.diff(snapshot(t, repo)); diff != "" {
		t.Fatalf("a refused apply changed the repo:\n%s", diff)
	}
}
