package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/gitcmd"
)

type runFunc func() int

func (f runFunc) Run() int { return f() }

// git runs git directly in dir, as test helpers do, with the process's
// environment.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestHermetic_GitStaysHome points GIT_DIR, GIT_WORK_TREE and
// GIT_INDEX_FILE at another repository, as a hook or a shell may. A test's
// direct git command then reaches that repository without Hermetic, and
// its own with it.
func TestHermetic_GitStaysHome(t *testing.T) {
	// Hermetic replaces these for the run and does not put them back.
	for _, k := range []string{"TMPDIR", "XDG_RUNTIME_DIR", "XDG_STATE_HOME", "OPTIMIZER_SOCKET"} {
		t.Setenv(k, os.Getenv(k))
	}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); gitcmd.IsRedirecting(k) {
			t.Setenv(k, "") // restored after the test
			os.Unsetenv(k)
		}
	}
	other := t.TempDir()
	git(t, other, "init", "-q")
	otherGit, _ := filepath.EvalSymlinks(filepath.Join(other, ".git"))
	t.Setenv("GIT_DIR", otherGit)
	t.Setenv("GIT_WORK_TREE", other)
	t.Setenv("GIT_INDEX_FILE", filepath.Join(otherGit, "index"))

	own := t.TempDir()
	if got := git(t, own, "rev-parse", "--absolute-git-dir"); got != otherGit {
		t.Fatalf("without Hermetic, git in %s used %s, want the redirected %s: the test proves nothing", own, got, otherGit)
	}
	ran := false
	code := Hermetic(runFunc(func() int {
		ran = true
		for _, kv := range os.Environ() {
			if k, _, _ := strings.Cut(kv, "="); gitcmd.IsRedirecting(k) {
				t.Errorf("%s is set inside Hermetic", kv)
			}
		}
		dir := filepath.Join(os.Getenv("TMPDIR"), "repo")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		git(t, dir, "init", "-q")
		want, _ := filepath.EvalSymlinks(filepath.Join(dir, ".git"))
		if got := git(t, dir, "rev-parse", "--absolute-git-dir"); got != want {
			t.Errorf("inside Hermetic, git in %s used %s, want its own %s", dir, got, want)
		}
		return 0
	})).Run()
	if !ran || code != 0 {
		t.Fatalf("Hermetic ran the tests: %v, status %d", ran, code)
	}
}
