package worktreepool

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// TestTakeLock_Cancel: the wait for a lock whose owner is dead (its
// flock still held, as by a child between fork and exec) ends with ctx.
func TestTakeLock_Cancel(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "slot.lock")
	if err := os.WriteFile(path, []byte(fmt.Sprintf("pid %d\n", dead.Process.Pid)), 0o644); err != nil {
		t.Fatal(err)
	}
	holder, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if err := syscall.Flock(int(holder.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	l, err := takeLock(ctx, path)
	if !errors.Is(err, context.Canceled) || l != nil {
		t.Errorf("takeLock with ctx done = %v, %v; want context.Canceled and no lock", l, err)
	}
}
