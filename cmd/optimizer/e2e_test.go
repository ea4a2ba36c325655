package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/testdata"
)

// TestE2E_RepoUntouched runs a whole job, then every command that reads it,
// on a repo with uncommitted, staged, untracked and stashed work. None of
// them may change the working tree, the index, HEAD, refs, the stash or
// git's config, and no slot may be left. Then apply changes exactly the
// winner's file, and refuses a second time.
func TestE2E_RepoUntouched(t *testing.T) {
	testenv.Once(t)
	repo := newTestRepo(t)
	cands := t.TempDir()
	if err := testdata.WriteDemoCandidates(cands); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"hang.patch", "nocompile.patch"} { // not needed here: keep it quick
		if err := os.Remove(filepath.Join(cands, name)); err != nil {
			t.Fatal(err)
		}
	}
	before := snapshot(t, repo)

	// The gate trips on slower, and the report is still printed in full.
	stdout := runOK(t, exitRegression, "--repo", repo, "-j", "2", "--candidates", cands, "--format", "json",
		"--no-profile", "--timeout", "2m", "--fail-on-regression")
	var rep struct {
		Job    string  `json:"job"`
		Winner *string `json:"winner"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, stdout)
	}
	if rep.Winner == nil || *rep.Winner != "fast" {
		t.Fatalf("winner = %v, want fast\n%s", rep.Winner, stdout)
	}
	for _, args := range [][]string{
		{"history", "--repo", repo},
		{"show", "--repo", repo, rep.Job},
		{"report", "--repo", repo, "--format", "markdown", rep.Job[:10]},
		{"report", "--repo", repo, "--format", "json"},
		{"gc", "--repo", repo},
	} {
		runOK(t, exitOK, args...)
	}
	after := snapshot(t, repo)
	if diff := before.diff(after); diff != "" {
		t.Fatalf("the repo changed:\n%s", diff)
	}

	runOK(t, exitOK, "apply", "--repo", repo, rep.Job)
	applied := snapshot(t, repo)
	before.files["sumsq/sumsq.go"] = applied.files["sumsq/sumsq.go"]
	if diff := before.diff(applied); diff != "" {
		t.Errorf("apply changed more than the winner's file:\n%s", diff)
	}
	if applied.files["sumsq/sumsq.go"] == after.files["sumsq/sumsq.go"] {
		t.Error("apply did not change sumsq/sumsq.go")
	}
	runOK(t, exitError, "apply", "--repo", repo, rep.Job)
	if diff := applied.diff(snapshot(t, repo)); diff != "" {
		t.Errorf("a refused apply changed the repo:\n%s", diff)
	}
}

// newTestRepo makes the fixture repo with work in every place git keeps it:
// a branch, a stash entry, a staged file, an unstaged edit, an untracked file.
func newTestRepo(tb testing.TB) string {
	tb.Helper()
	repo := filepath.Join(tb.TempDir(), "repo")
	if err := testdata.WriteFixture(repo); err != nil {
		tb.Fatal(err)
	}
	if _, err := testdata.InitRepo(context.Background(), repo); err != nil {
		tb.Fatal(err)
	}
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(data), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	git(tb, repo, "branch", "feature")
	write("words/words.go", "package words\n\n// Count is stashed.\nfunc Count(s string) int { return 0 }\n")
	git(tb, repo, "stash", "push", "-q", "-m", "stashed work")
	write("staged.txt", "staged\n")
	git(tb, repo, "add", "staged.txt")
	write("words/extra.go", "package words\n\n// Extra is untracked.\nconst Extra = 1\n")
	data, err := os.ReadFile(filepath.Join(repo, "words", "words.go"))
	if err != nil {
		tb.Fatal(err)
	}
	write("words/words.go", strings.Replace(string(data), "counts words", "counts words (edited)", 1))
	return repo
}

func git(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.invalid"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// runOK runs the CLI in-process and checks its exit code; it returns stdout.
func runOK(t *testing.T, want int, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), args, &stdout, &stderr)
	if got := exitCode(err); got != want {
		t.Fatalf("optimizer %s: exit %d (%v), want %d\nstdout:\n%s\nstderr:\n%s",
			strings.Join(args, " "), got, err, want, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// repoState is what a user would call their repository's state.
type repoState struct {
	files map[string]string // working tree, outside .git: path -> sha256
	git   map[string]string // index, HEAD, config, refs, stash, worktrees
}

func snapshot(t *testing.T, repo string) repoState {
	t.Helper()
	s := repoState{files: map[string]string{}, git: map[string]string{}}
	err := filepath.WalkDir(repo, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repo, p)
		if d.IsDir() {
			if rel == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			s.files[filepath.ToSlash(rel)] = "symlink " + target
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		s.files[filepath.ToSlash(rel)] = fmt.Sprintf("%x", sha256.Sum256(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"index", "HEAD", "config"} {
		b, err := os.ReadFile(filepath.Join(repo, ".git", f))
		if err != nil {
			t.Fatal(err)
		}
		s.git[f] = fmt.Sprintf("%x", sha256.Sum256(b))
	}
	s.git["refs"] = git(t, repo, "for-each-ref", "--format=%(refname) %(objectname)")
	s.git["stash"] = git(t, repo, "stash", "list", "--format=%H %s")
	s.git["worktrees"] = git(t, repo, "worktree", "list", "--porcelain")
	return s
}

// diff lists what differs between two states, or "".
func (s repoState) diff(o repoState) string {
	var b strings.Builder
	for _, m := range []struct {
		what string
		a, b map[string]string
	}{{"file", s.files, o.files}, {"git", s.git, o.git}} {
		for k, v := range m.a {
			if w, ok := m.b[k]; !ok {
				fmt.Fprintf(&b, "%s %s: gone\n", m.what, k)
			} else if v != w {
				fmt.Fprintf(&b, "%s %s: changed\n  %q\n  %q\n", m.what, k, v, w)
			}
		}
		for k := range m.b {
			if _, ok := m.a[k]; !ok {
				fmt.Fprintf(&b, "%s %s: new\n", m.what, k)
			}
		}
	}
	return b.String()
}
