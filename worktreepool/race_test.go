package worktreepool

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// raceGit puts a git first on PATH that fails the first fails calls of git
// worktree add. They fail the way a concurrent add or remove in the same
// repository makes them fail. Otherwise it runs the real git. It returns
// the file that counts the adds it failed.
func raceGit(t *testing.T, fails int) string {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	count := filepath.Join(dir, "failed")
	script := fmt.Sprintf(`#!/bin/sh
case " $* " in *" worktree add "*)
  n=0; [ -f %[1]q ] && n=$(wc -l < %[1]q)
  if [ "$n" -lt %[2]d ]; then
    echo x >> %[1]q
    echo "fatal: failed to read .git/worktrees/other/commondir: Success" >&2
    exit 128
  fi;;
esac
exec %[3]q "$@"
`, count, fails, real)
	if err := os.WriteFile(filepath.Join(dir, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return count
}

func failedAdds(t *testing.T, count string) int {
	t.Helper()
	b, err := os.ReadFile(count)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// TestMakeSlot_RacedAdd: git worktree add may fail because another git was
// adding or removing a worktree of the same repository at that moment. It
// is tried again, and the slot is made. An add that keeps failing fails the
// slot after addTries, leaving no worktree behind.
func TestMakeSlot_RacedAdd(t *testing.T) {
	t.Run("Transient", func(t *testing.T) {
		repo, base := newTestRepo(t)
		count := raceGit(t, 2)
		p := openPool(t, repo, base, 1, false)
		defer closePool(t, p)
		s, err := p.Acquire(context.Background())
		if err != nil {
			t.Fatalf("acquire after two raced adds: %v", err)
		}
		if _, err := os.Stat(filepath.Join(s.Dir(), "a.txt")); err != nil {
			t.Errorf("the slot has no checkout: %v", err)
		}
		p.Release(s)
		if n := failedAdds(t, count); n != 2 {
			t.Errorf("%d adds failed, want 2 (the wrapper did not run?)", n)
		}
	})
	t.Run("Persistent", func(t *testing.T) {
		repo, base := newTestRepo(t)
		count := raceGit(t, 1000)
		p, err := Open(context.Background(), Options{Repo: repo, Base: base, Size: 1, MachineLock: privateLock(t)})
		if err == nil {
			_, err = p.Acquire(context.Background())
			p.Close(context.Background())
		}
		if err == nil || !strings.Contains(err.Error(), "commondir") {
			t.Fatalf("a slot whose add always fails: %v, want the git error", err)
		}
		if n := failedAdds(t, count); n != addTries {
			t.Errorf("%d adds tried, want %d", n, addTries)
		}
		out := run(t, repo, "git", "worktree", "list", "--porcelain")
		if strings.Count(out, "worktree ") != 1 {
			t.Errorf("worktrees left behind:\n%s", out)
		}
	})
}
