package proc

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// groupMembers lists the live (not zombie) processes of group pgid, read
// from /proc. Zombies are ignored: in a container without an init that
// reaps, a killed grandchild can stay a zombie, which runs nothing.
func groupMembers(t *testing.T, pgid int) []int {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and parens.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(b[i+1:]))
		if len(fields) < 3 || fields[0] == "Z" || fields[0] == "X" {
			continue
		}
		if g, _ := strconv.Atoi(fields[2]); g == pgid {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
			pids = append(pids, pid)
		}
	}
	return pids
}

// assertGroupGone waits until no live process is left in group pgid. SIGKILL
// is asynchronous, so this polls, with a deadline far above what it needs.
func assertGroupGone(t *testing.T, pgid int) {
	t.Helper()
	if pgid <= 0 {
		t.Fatal("OnStart was not called")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		left := groupMembers(t, pgid)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, p := range left {
				syscall.Kill(p, syscall.SIGKILL)
			}
			t.Fatalf("processes %v of group %d outlived Run", left, pgid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A process that left the group (setsid) but holds stdout open delays Run by
// at most PipeDelay.
func TestRun_EscapedGrandchild(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	line := "setsid sh -c 'echo $$ > " + pidFile + "; exec sleep 30' & while [ ! -s " + pidFile + " ]; do sleep 0.01; done; echo done"
	res, err := Run(t.Context(), Cmd{Args: Shell(line), Timeout: time.Minute, CPU: -1})
	if b, _ := os.ReadFile(pidFile); len(b) > 0 {
		if p, _ := strconv.Atoi(strings.TrimSpace(string(b))); p > 0 {
			syscall.Kill(p, syscall.SIGKILL)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 || res.TimedOut || !strings.Contains(string(res.Output), "done") {
		t.Errorf("got exit %d timedOut %v output %q", res.ExitCode, res.TimedOut, res.Output)
	}
}

func TestRun_Pin(t *testing.T) {
	res, err := Run(t.Context(), Cmd{Args: Shell("grep Cpus_allowed_list /proc/self/status"), CPU: 0})
	if err != nil {
		t.Fatal(err)
	}
	if res.Pinned != CanPin(0) {
		t.Errorf("Pinned %v, CanPin(0) %v", res.Pinned, CanPin(0))
	}
	if !res.Pinned {
		t.Skip("pinning unavailable:", string(res.Output))
	}
	if got := strings.TrimSpace(strings.TrimPrefix(string(res.Output), "Cpus_allowed_list:")); got != "0" {
		t.Errorf("allowed CPUs %q, want 0", got)
	}
}

func TestRun_PinUnavailable(t *testing.T) {
	res, err := Run(t.Context(), Cmd{Args: Shell("true"), CPU: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if res.Pinned || res.ExitCode != 0 {
		t.Errorf("got pinned %v exit %d, want an unpinned run", res.Pinned, res.ExitCode)
	}
}

func TestRun_Timeout(t *testing.T) {
	var pid int
	res, err := Run(t.Context(), Cmd{Args: Shell("sleep 100 & sleep 100"), Timeout: 200 * time.Millisecond, CPU: -1,
		OnStart: func(p int) { pid = p }})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.Canceled || res.ExitCode != -1 {
		t.Errorf("got timedOut %v canceled %v exit %d, want a timed-out run killed by a signal", res.TimedOut, res.Canceled, res.ExitCode)
	}
	assertGroupGone(t, pid)
}

func TestRun_Cancel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var pid int
	res, err := Run(ctx, Cmd{Args: Shell("sleep 100 & sleep 100"), Timeout: time.Hour, CPU: -1,
		OnStart: func(p int) { pid = p; cancel() }})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Canceled || res.TimedOut || res.ExitCode != -1 {
		t.Errorf("got timedOut %v canceled %v exit %d, want a cancelled run killed by a signal", res.TimedOut, res.Canceled, res.ExitCode)
	}
	assertGroupGone(t, pid)
}

// A grandchild that keeps stdout open after the leader exits must neither
// hang Run nor outlive it.
func TestRun_GrandchildHoldsStdout(t *testing.T) {
	var pid int
	res, err := Run(t.Context(), Cmd{Args: Shell("sleep 100 & echo started"), CPU: -1, OnStart: func(p int) { pid = p }})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 || res.TimedOut || string(res.Output) != "started\n" {
		t.Errorf("got exit %d timedOut %v output %q", res.ExitCode, res.TimedOut, res.Output)
	}
	assertGroupGone(t, pid)
}

// TestRun_MemLimit caps a process's memory: a shell that tries to take
// 512 MB under a 256 MB cap fails, and runs under a 1 GB one.
func TestRun_MemLimit(t *testing.T) {
	if !CanLimitMemory() {
		t.Skip("no prlimit")
	}
	// Bash-free: dd with a huge block size allocates its buffer at once.
	line := "dd if=/dev/zero of=/dev/null bs=512M count=1 2>&1"
	for _, tt := range []struct {
		limit int64
		ok    bool
	}{{256 << 20, false}, {1 << 30, true}, {0, true}} {
		res, err := Run(context.Background(), Cmd{Args: Shell(line), CPU: -1, MemLimit: tt.limit})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.ExitCode == 0; got != tt.ok {
			t.Errorf("limit %d: exit %d, want success %v\n%s", tt.limit, res.ExitCode, tt.ok, res.Output)
		}
		if res.Limited != (tt.limit > 0) {
			t.Errorf("limit %d: Limited %v", tt.limit, res.Limited)
		}
	}
}

// TestKillTagged kills the processes whose environment holds the tag
// exactly, and leaves one whose value only starts the same.
func TestKillTagged(t *testing.T) {
	start := func(value string) *exec.Cmd {
		cmd := exec.Command("sleep", "600")
		cmd.Env = append(os.Environ(), "PROC_TEST_TAG="+value)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
	tagged, other := start("slot-1"), start("slot-10")
	if n := KillTagged("PROC_TEST_TAG", "slot-1"); n != 1 {
		t.Errorf("KillTagged = %d, want 1", n)
	}
	if err := tagged.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("the tagged process: Wait = %v, want killed", err)
	}
	if !Exists(other.Process.Pid) {
		t.Error("the process tagged slot-10 was killed")
	}
}
