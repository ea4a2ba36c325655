package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/internal/testenv"
)

// ciRepo is a repository with main and a pull request branch, feature,
// that changes how long the benchmark sleeps and whether the test passes.
func ciRepo(t *testing.T, speed, ok string) (repo, base, head string) {
	t.Helper()
	repo = filepath.Join(t.TempDir(), "repo")
	write := func(name, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(repo, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("test.sh", "test \"$(cat ok)\" = yes || { echo 'not ok 1 - the answer is wrong'; exit 1; }\necho 'ok 1 - the answer'\n")
	write("bench.sh", "sleep \"$(cat speed)\"\n")
	write("speed", "0.2\n")
	write("ok", "yes\n")
	git(t, repo, "init", "-q", "-b", "main")
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "base")
	git(t, repo, "checkout", "-q", "-b", "feature")
	write("speed", speed+"\n")
	write("ok", ok+"\n")
	git(t, repo, "commit", "-q", "-am", "the change under review")
	git(t, repo, "checkout", "-q", "main")
	write("README", "main moved on after the branch\n")
	git(t, repo, "add", "README")
	git(t, repo, "commit", "-q", "-m", "main moves on")
	return repo, strings.TrimSpace(git(t, repo, "rev-parse", "main")), strings.TrimSpace(git(t, repo, "rev-parse", "feature"))
}

// TestCI_GitHub runs optimizer ci end to end as a GitHub Actions
// pull_request job would. A faster head passes, a slower head fails the
// gate with 3, and a head whose tests fail exits 4. Each writes the step
// summary, the comment and the artifact directory, and leaves the
// repository as it was. The job's branches come from GITHUB_BASE_REF and
// GITHUB_HEAD_REF; reading the event file is premerge's (TestPrepare).
func TestCI_GitHub(t *testing.T) {
	testenv.Once(t)
	for _, tt := range []struct {
		name, speed, ok string
		want            int
		headline        string
	}{
		// 10× and 5× in sleep: at 2× a CI run's own compiling beside it
		// (load 3.4) made the slower head 0.74× [0.57×, 1.04×], not slower.
		{"Faster", "0.02", "yes", exitOK, "**faster**"},
		{"Slower", "1.0", "yes", exitRegression, "**slower**"},
		{"TestsFail", "0.2", "no", exitHeadFailed, "**failed**"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			repo, base, head := ciRepo(t, tt.speed, tt.ok)
			work := t.TempDir()
			summary, out := filepath.Join(work, "summary.md"), filepath.Join(work, "out")
			for k, v := range map[string]string{
				"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": "", // the runner's own, if any, is not this job's
				"GITHUB_BASE_REF": "main", "GITHUB_HEAD_REF": "feature", "GITHUB_STEP_SUMMARY": summary,
			} {
				t.Setenv(k, v)
			}
			before := snapshot(t, repo)
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), []string{"ci", "--repo", repo, "--out", out, "-j", "1",
				"--test", "sh test.sh", "--bench", "sh bench.sh", "--no-profile"}, &stdout, &stderr)
			if got := exitCode(err); got != tt.want {
				t.Fatalf("exit %d (%v), want %d\nstderr:\n%s", got, err, tt.want, stderr.String())
			}
			comment, err := os.ReadFile(filepath.Join(out, "comment.md"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(comment), tt.headline) {
				t.Errorf("comment.md has no %s headline:\n%s", tt.headline, comment)
			}
			if strings.Contains(string(comment), repo) || strings.Contains(string(comment), work) {
				t.Errorf("comment.md names a local path:\n%s", comment)
			}
			if got, err := os.ReadFile(summary); err != nil || !bytes.Equal(got, comment) {
				t.Errorf("the step summary is not the comment (%v):\n%s", err, got)
			}
			var rep evaluator.Report
			b, err := os.ReadFile(filepath.Join(out, "report.json"))
			if err == nil {
				err = json.Unmarshal(b, &rep)
			}
			if err != nil || len(rep.Candidates) != 1 || rep.Candidates[0].Name != "feature" {
				t.Fatalf("report.json: %v, %+v", err, rep.Candidates)
			}
			mergeBase := strings.TrimSpace(git(t, repo, "merge-base", base, head))
			if rep.Base != mergeBase || mergeBase == base {
				t.Errorf("judged against %s; want the merge base %s, not main's tip %s", rep.Base, mergeBase, base)
			}
			for _, f := range []string{"report.md", "optimizer.db"} {
				if _, err := os.Stat(filepath.Join(out, f)); err != nil {
					t.Errorf("the artifact directory lacks %s: %v", f, err)
				}
			}
			if diff := before.diff(snapshot(t, repo)); diff != "" {
				t.Errorf("optimizer ci changed the repository:\n%s", diff)
			}
		})
	}
}

// TestCI_Shallow: in a clone too shallow to reach the merge base, ci says
// what fetch depth to set, before anything runs.
func TestCI_Shallow(t *testing.T) {
	src, _, _ := ciRepo(t, "0.1", "yes")
	shallow := filepath.Join(t.TempDir(), "shallow")
	git(t, t.TempDir(), "clone", "-q", "--depth", "1", "--no-single-branch", "file://"+src, shallow)
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"ci", "--repo", shallow, "--base", "origin/main", "--head", "origin/feature",
		"--out", filepath.Join(t.TempDir(), "out")}, &stdout, &stderr)
	if exitCode(err) != exitError || !strings.Contains(stderr.String(), "fetch-depth: 0") {
		t.Fatalf("exit %d (%v); want 1 and advice to set fetch-depth: 0\nstderr:\n%s", exitCode(err), err, stderr.String())
	}
}
