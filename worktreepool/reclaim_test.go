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

// deadPID returns the PID of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// orphanSlot makes a slot by hand as a pool whose process was killed leaves
// it: NAME.lock naming a dead owner, and a worktree locked in git.
func orphanSlot(t *testing.T, repo, base, name string) string {
	t.Helper()
	slots := filepath.Join(repo, ".git", filepath.FromSlash(DefaultDir))
	if err := os.MkdirAll(slots, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(slots, name)
	if err := os.WriteFile(dir+".lock", fmt.Appendf(nil, "pid %d\n", deadPID(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, repo, "git", "worktree", "add", "-q", "--detach", "--lock", dir, base)
	return dir
}

// TestReclaim_HalfMadeRecord: a git worktree add killed halfway leaves a
// record with an empty commondir, which makes every git worktree command
// fail. Reclaim deletes that record, removes the sound orphan beside it
// (which sorts first, so it fails once), and leaves the user's own
// worktree alone.
func TestReclaim_HalfMadeRecord(t *testing.T) {
	repo, base := newTestRepo(t)
	user := filepath.Join(t.TempDir(), "mine")
	run(t, repo, "git", "worktree", "add", "-q", "--detach", user, base)
	orphanSlot(t, repo, base, "slot-00000001")
	broken := orphanSlot(t, repo, base, "slot-00000002")
	rec := filepath.Join(repo, ".git", "worktrees", filepath.Base(broken))
	if err := os.WriteFile(filepath.Join(rec, "commondir"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := worktrees(context.Background(), repo); err == nil {
		t.Fatal("git worktree list works with an empty commondir; the test sets up nothing")
	}
	n, err := Reclaim(context.Background(), repo, "", false)
	if err != nil || n != 2 {
		t.Errorf("Reclaim: %d, %v; want 2", n, err)
	}
	if l := linked(t, repo); len(l) != 1 || !samePath(l[0], user) {
		t.Errorf("worktrees after Reclaim: %v, want only %s", l, user)
	}
	if _, err := os.Stat(rec); !os.IsNotExist(err) {
		t.Errorf("the half-made record is still there: %v", err)
	}
}

// TestReclaim_LeftTempLock: a lock file whose maker was killed before it
// was renamed into place is removed; one whose maker lives is not.
func TestReclaim_LeftTempLock(t *testing.T) {
	repo, _ := newTestRepo(t)
	slots := filepath.Join(repo, ".git", filepath.FromSlash(DefaultDir))
	if err := os.MkdirAll(slots, 0o755); err != nil {
		t.Fatal(err)
	}
	dead := filepath.Join(slots, fmt.Sprintf("slot-00000001.lock.%d.tmp", deadPID(t)))
	live := filepath.Join(slots, fmt.Sprintf("slot-00000002.lock.%d.tmp", os.Getpid()))
	for _, p := range []string{dead, live} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Reclaim(context.Background(), repo, "", false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("the dead maker's lock file is still there: %v", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("the live maker's lock file was removed: %v", err)
	}
}

// TestReclaim_LockHeldAfterOwnerDied: for a moment after an owner is
// killed, a child it was starting can hold a copy of the lock's descriptor.
// A slot whose lock names a dead owner is waited for, not taken for owned.
func TestReclaim_LockHeldAfterOwnerDied(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("no flock(1), from util-linux")
	}
	repo, base := newTestRepo(t)
	dir := orphanSlot(t, repo, base, "slot-00000001")
	f, err := os.OpenFile(dir+".lock", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The child inherits the open file, flocks it and holds it for a while.
	child := exec.Command("sh", "-c", `flock -x 3 && echo locked && sleep 0.5`)
	child.ExtraFiles = []*os.File{f}
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	line := make([]byte, 7)
	if _, err := out.Read(line); err != nil || !strings.HasPrefix(string(line), "locked") {
		t.Fatalf("child: %q, %v", line, err)
	}
	// Had the wait for the child's flock given up (orphanWait), the slot
	// would be left as owned: n == 1 says Reclaim waited for it.
	n, err := Reclaim(context.Background(), repo, "", false)
	if err != nil || n != 1 {
		t.Errorf("Reclaim: %d, %v; want 1, once the child let go", n, err)
	}
	child.Wait()
	if l := linked(t, repo); len(l) != 0 {
		t.Errorf("worktrees left: %v", l)
	}
}
