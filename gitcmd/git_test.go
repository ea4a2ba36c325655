package gitcmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// newTestRepo makes a repository with one commit and returns its path.
func newTestRepo(tb testing.TB) string {
	tb.Helper()
	dir := tb.TempDir()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "--allow-empty", "-m", "first"},
	} {
		if _, err := Run(context.Background(), Cmd{Dir: dir, Args: args}); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

func TestRun_Output(t *testing.T) {
	dir := newTestRepo(t)
	out, err := Run(context.Background(), Cmd{Dir: dir, Args: []string{"rev-parse", "--abbrev-ref", "HEAD"}})
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != "main\n" {
		t.Errorf("Run = %q, want main", out)
	}
}

func TestRun_Error(t *testing.T) {
	dir := newTestRepo(t)
	_, err := Run(context.Background(), Cmd{Args: []string{"-C", dir, "rev-parse", "--verify", "no-such-rev"}})
	var ge *Error
	if !errors.As(err, &ge) {
		t.Fatalf("err = %v, want an *Error", err)
	}
	if ge.ExitCode() != 128 {
		t.Errorf("ExitCode = %d, want 128", ge.ExitCode())
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "git rev-parse: ") || !strings.Contains(msg, "Needed a single revision") {
		t.Errorf("Error() = %q, want the subcommand and git's stderr", msg)
	}
}

// TestRun_Environment: variables that point git elsewhere are dropped,
// prompts are off, ReadOnly takes no optional locks, and Env comes last.
func TestRun_Environment(t *testing.T) {
	dir := newTestRepo(t)
	t.Setenv("GIT_DIR", filepath.Join(t.TempDir(), "elsewhere"))
	t.Setenv("GIT_OPTIONAL_LOCKS", "")
	for _, tt := range []struct {
		name     string
		readOnly bool
		want     []string
		wantNot  []string
	}{
		{"Owned", false, []string{"GIT_TERMINAL_PROMPT=0", "EXTRA=1"}, []string{"GIT_DIR=", "GIT_OPTIONAL_LOCKS=0"}},
		{"ReadOnly", true, []string{"GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "EXTRA=1"}, []string{"GIT_DIR="}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// An alias's shell sees the environment git was given; git
			// itself only adds variables such as GIT_PREFIX.
			out, err := Run(context.Background(), Cmd{Dir: dir, Args: []string{"-c", "alias.env=!env", "env"},
				ReadOnly: tt.readOnly, Env: []string{"EXTRA=1"}})
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(string(out), "\n")
			has := func(prefix string) bool {
				for _, l := range lines {
					if strings.HasPrefix(l, prefix) {
						return true
					}
				}
				return false
			}
			for _, w := range tt.want {
				if !has(w) {
					t.Errorf("environment lacks %s", w)
				}
			}
			for _, w := range tt.wantNot {
				if has(w) {
					t.Errorf("environment has %s", w)
				}
			}
		})
	}
}

// TestRun_NoHooks: a repository's hooks never run under the runner.
func TestRun_NoHooks(t *testing.T) {
	dir := newTestRepo(t)
	marker := filepath.Join(t.TempDir(), "hook-ran")
	hook := filepath.Join(dir, ".git", "hooks", "pre-commit")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), Cmd{Dir: dir, Args: []string{"-c", "user.name=t", "-c", "user.email=t@example.invalid",
		"commit", "-q", "--allow-empty", "-m", "second"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the pre-commit hook ran (stat: %v)", err)
	}
}

// TestRun_Cancel: cancelling ctx kills git's whole process group, a
// grandchild included, and Run's error says it was cancelled.
func TestRun_Cancel(t *testing.T) {
	dir := newTestRepo(t)
	fifo := filepath.Join(t.TempDir(), "started")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		// The alias's shell starts sleep in the background, says its PID,
		// then waits for it: only a group kill reaches the sleep.
		_, err := Run(ctx, Cmd{Dir: dir, Args: []string{"-c", "alias.hang=!sleep 600 & echo $! > " + fifo + "; wait", "hang"}})
		errc <- err
	}()
	b, err := os.ReadFile(fifo) // blocks until the shell has written
	if err != nil {
		t.Fatal(err)
	}
	pid := strings.TrimSpace(string(b))
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run after cancel: %v, want context.Canceled", err)
	}
	// The sleep got SIGKILL with its group; it is gone, or a zombie until
	// init reaps it, once the kernel has delivered the signal.
	deadline := time.Now().Add(30 * time.Second)
	for {
		stat, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil || strings.Contains(string(stat), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the grandchild %s still runs after the group kill: %s", pid, stat)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
