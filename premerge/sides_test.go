package premerge

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/report"
	"github.com/optimizer-dev/optimizer/result"
)

// newTestRepo is a repository with main and a branch, feature, made from
// main's first commit; main moved on after it. It returns the repository
// and the three commits.
func newTestRepo(tb testing.TB) (dir, fork, main, feature string) {
	tb.Helper()
	dir = filepath.Join(tb.TempDir(), "repo")
	commit := func(name, msg string) string {
		tb.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(msg+"\n"), 0o644); err != nil {
			tb.Fatal(err)
		}
		git(tb, dir, "add", name)
		git(tb, dir, "commit", "-q", "-m", msg)
		return git(tb, dir, "rev-parse", "HEAD")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	git(tb, dir, "init", "-q", "-b", "main")
	fork = commit("a", "base")
	git(tb, dir, "checkout", "-q", "-b", "feature")
	feature = commit("b", "the change")
	git(tb, dir, "checkout", "-q", "main")
	main = commit("c", "main moves on")
	return dir, fork, main, feature
}

func git(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// findRepo is the repository at dir, or the test's end.
func findRepo(tb testing.TB, dir string) gitcmd.Repo {
	tb.Helper()
	r, err := gitcmd.FindRepo(context.Background(), dir)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

func TestPullRequest_Resolve(t *testing.T) {
	dir, fork, main, feature := newTestRepo(t)
	ctx := context.Background()
	for _, tt := range []struct {
		name    string
		pr      PullRequest
		wantErr string
	}{
		{name: "Branches", pr: PullRequest{BaseRef: "main", HeadRef: "feature"}},
		{name: "Commits", pr: PullRequest{BaseSHA: main, HeadSHA: feature, BaseRef: "gone", HeadRef: "gone"}},
		{name: "NoHead", pr: PullRequest{BaseRef: "main", HeadRef: "nope"},
			wantErr: "the pull request's head nope is not in this clone (looked for refs/remotes/origin/nope, nope): fetch it first (git fetch origin nope)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mb, head, err := tt.pr.Resolve(ctx, findRepo(t, dir))
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || mb != fork || head != feature {
				t.Errorf("Resolve = %s, %s, %v; want the merge base %s and the head %s", mb, head, err, fork, feature)
			}
		})
	}
}

// TestPullRequest_ResolveShallow: a clone too shallow to reach the merge
// base says what fetch depth to set.
func TestPullRequest_ResolveShallow(t *testing.T) {
	src, _, _, _ := newTestRepo(t)
	shallow := filepath.Join(t.TempDir(), "shallow")
	git(t, t.TempDir(), "clone", "-q", "--depth", "1", "--no-single-branch", "file://"+src, shallow)
	_, _, err := PullRequest{BaseRef: "main", HeadRef: "feature"}.Resolve(context.Background(), findRepo(t, shallow))
	if err == nil || !strings.Contains(err.Error(), "this clone is shallow") || !strings.Contains(err.Error(), "fetch-depth: 0") {
		t.Errorf("err = %v, want advice to set fetch-depth: 0", err)
	}
}

// TestPullRequest_Candidates: the head is a candidate named after its
// branch, changing what the branch changes since the merge base.
func TestPullRequest_Candidates(t *testing.T) {
	dir, fork, _, feature := newTestRepo(t)
	cands, err := PullRequest{HeadRef: "feature"}.Candidates(context.Background(), dir, fork, feature, nil)
	if err != nil || len(cands) != 1 {
		t.Fatalf("Candidates = %+v, %v", cands, err)
	}
	if c := cands[0]; c.Name != "feature" || c.Source != "pull request head "+feature || !strings.Contains(string(c.Patch)+strings.Join(keys(c.Files), " "), "b") {
		t.Errorf("candidate %+v: want feature, its source, and its change to b", c)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestWriteOutputs: the comment, the reports and the step summary, which
// is the comment appended.
func TestWriteOutputs(t *testing.T) {
	out := t.TempDir()
	summary := filepath.Join(t.TempDir(), "summary.md")
	if err := os.WriteFile(summary, []byte("before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := &result.Report{Job: "job1", Candidates: []result.CandidateResult{{Name: "feature", Verdict: result.VerdictFaster, Speedup: 1.5}}}
	g := report.JudgeGate(rep, "feature", []string{report.GateRegression})
	if err := WriteOutputs(out, PullRequest{Summary: summary}, rep, g); err != nil {
		t.Fatal(err)
	}
	comment, err := os.ReadFile(filepath.Join(out, "comment.md"))
	if err != nil || len(comment) == 0 {
		t.Fatalf("comment.md: %v", err)
	}
	for _, f := range []string{"report.md", "report.json"} {
		if fi, err := os.Stat(filepath.Join(out, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if got, _ := os.ReadFile(summary); string(got) != "before\n"+string(comment) {
		t.Errorf("the step summary is not the comment appended:\n%s", got)
	}
}
