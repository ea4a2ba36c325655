package premerge

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/report"
	"github.com/optimizer-dev/optimizer/result"
)

// TestPrepare: a GitHub Actions pull request job, with the event file
// naming both commits, becomes the head judged against the merge base of
// the two branches. That is not main's tip. The head comes first among the
// candidates.
func TestPrepare(t *testing.T) {
	dir, fork, main, feature := newTestRepo(t)
	event := filepath.Join(t.TempDir(), "event.json")
	writeEvent(t, event, "main", main, "feature", feature)
	env := map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": event,
		"GITHUB_BASE_REF": "main", "GITHUB_HEAD_REF": "feature", "GITHUB_STEP_SUMMARY": "/tmp/summary",
	}
	extra := t.TempDir()
	if err := os.WriteFile(filepath.Join(extra, "also.patch"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := Prepare(context.Background(), func(k string) string { return env[k] }, dir, "", "", []string{extra})
	if err != nil {
		t.Fatal(err)
	}
	if j.MergeBase != fork || j.Head != feature {
		t.Errorf("merge base %s, head %s; want %s (the fork point, not main's %s) and %s", j.MergeBase, j.Head, fork, main, feature)
	}
	if j.PR.Label() != "github #7: " || j.PR.Summary != "/tmp/summary" || j.Repo.Root == "" {
		t.Errorf("job %+v: want github #7 with its step summary, in the repository", j)
	}
	if len(j.Candidates) != 2 || j.Candidates[0].Name != "feature" || j.Candidates[1].Name != "also" {
		t.Errorf("candidates %+v: want the head, feature, then also", j.Candidates)
	}
}

// TestPrepare_NotAPullRequest: outside a pull request's job, Prepare says
// so as a *DetectError before it looks for a repository.
func TestPrepare_NotAPullRequest(t *testing.T) {
	_, err := Prepare(context.Background(), func(string) string { return "" }, filepath.Join(t.TempDir(), "nothing"), "", "", nil)
	var de *DetectError
	if !errors.As(err, &de) {
		t.Errorf("err = %v, want a *DetectError", err)
	}
}

// TestJob_Publish: the gate judges the job's head, its first candidate,
// whatever the others did, and the outputs are written.
func TestJob_Publish(t *testing.T) {
	out := t.TempDir()
	j := Job{Candidates: []candidate.Candidate{{Name: "feature"}, {Name: "other"}}}
	rep := &result.Report{Job: "job1", Candidates: []result.CandidateResult{
		{Name: "other", Verdict: result.VerdictFaster, Speedup: 1.5},
		{Name: "feature", Verdict: result.VerdictFailed, Failure: &result.Failure{Kind: result.FailTest}},
	}}
	g, err := j.Publish(out, rep, []string{report.GateRegression})
	if err != nil {
		t.Fatal(err)
	}
	if g.Head.Name != "feature" || g.Failed == "" {
		t.Errorf("gate %+v: want the head, feature, failed", g)
	}
	for _, f := range []string{"comment.md", "report.md", "report.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
