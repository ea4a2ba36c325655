package worktreepool

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// waitBlocked waits until a holder of p is blocked on the machine lock, and
// returns what p says of it.
func waitBlocked(t *testing.T, p *Pool) MachineWait {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if w, ok := p.MachineWait(); ok {
			return w
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no holder of the pool waited for the machine lock")
	return MachineWait{}
}

// holdWithFlock holds lock exclusively from another process that is not an
// optimizer (util-linux's flock), until the test ends. It returns its PID.
func holdWithFlock(t *testing.T, lock string) int {
	t.Helper()
	bin, err := exec.LookPath("flock")
	if err != nil {
		t.Skip("flock (util-linux) is not installed")
	}
	cmd := exec.Command(bin, lock, "sh", "-c", "echo locked; exec cat")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "locked\n" {
		t.Fatalf("flock said %q, want locked", line)
	}
	return cmd.Process.Pid
}

// TestPool_MachineWait: a holder waiting for the machine lock says who holds
// it. That may be another optimizer, with what it does, where and since
// when. It may be a process that is not an optimizer, or a stale record.
func TestPool_MachineWait(t *testing.T) {
	repo, base := newTestRepo(t)
	other, otherBase := newTestRepo(t)
	open := func(repo, base, lock string) *Pool {
		p, err := Open(context.Background(), Options{Repo: repo, Base: base, Size: 2, MachineLock: lock})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { closePool(t, p) })
		return p
	}
	// wait starts an acquire on p that blocks, and returns what p says of it
	// once blocked; the acquire is cancelled when the test ends.
	wait := func(t *testing.T, p *Pool, exclusive bool) MachineWait {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		t.Cleanup(func() { cancel(); <-done })
		go func() {
			defer close(done)
			if exclusive {
				ss, err := p.AcquireExclusive(ctx)
				for _, s := range ss {
					p.Release(s)
				}
				if err == nil {
					t.Error("AcquireExclusive got the machine while another held it")
				}
				return
			}
			s, err := p.Acquire(ctx)
			if err == nil {
				p.Release(s)
				t.Error("Acquire got the machine while another held it alone")
			}
		}()
		return waitBlocked(t, p)
	}

	t.Run("Optimizer", func(t *testing.T) {
		lock := filepath.Join(t.TempDir(), "machine.lock")
		a, b := open(other, otherBase, lock), open(repo, base, lock)
		before := time.Now()
		ss, err := a.AcquireExclusive(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { // after the waiter is cancelled: cleanups run last first
			for _, s := range ss {
				a.Release(s)
			}
		})
		w := wait(t, b, false)
		root, _ := filepath.Abs(other)
		want := fmt.Sprintf("optimizer pid %d is benchmarking %s, since ", os.Getpid(), root)
		if got := w.String(); !strings.HasPrefix(got, want) {
			t.Errorf("waiting for %q, want %q and the time", got, want)
		}
		if w.Since.Before(before) || w.Since.IsZero() {
			t.Errorf("the wait began at %v, before the test's hold at %v", w.Since, before)
		}
	})

	t.Run("NotAnOptimizer", func(t *testing.T) {
		lock := filepath.Join(t.TempDir(), "machine.lock")
		pid := holdWithFlock(t, lock)
		w := wait(t, open(repo, base, lock), true)
		for _, want := range []string{
			fmt.Sprintf("pid %d (flock) holds the lock and left no holder record: it is not an optimizer", pid),
			fmt.Sprintf("`ls -l /proc/%d/exe`", pid), // how to see what it is
			"the lock " + lock + ", waited for since ",
		} {
			if got := w.String(); !strings.Contains(got, want) {
				t.Errorf("waiting for %q, want it to say %q", got, want)
			}
		}
	})

	// Records left by a run that was killed (one per activity) are removed
	// and not mentioned. The wait is said in one clause, the same at every
	// look, naming who really holds the lock.
	t.Run("StaleRecords", func(t *testing.T) {
		lock := filepath.Join(t.TempDir(), "machine.lock")
		dead := deadPID(t)
		dir := recordsDir(lock)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		var recs []string
		for i, what := range []string{WhatTesting, WhatTesting, WhatBenchmarking, WhatWaiting} {
			rec := filepath.Join(dir, fmt.Sprintf("%d-%d.json", dead, i))
			b, _ := json.Marshal(holderRecord{PID: dead, What: what, Repo: "/gone/repo", Since: time.Now()})
			if err := os.WriteFile(rec, b, 0o644); err != nil {
				t.Fatal(err)
			}
			recs = append(recs, rec)
		}
		pid := holdWithFlock(t, lock)
		p := open(repo, base, lock)
		first := wait(t, p, true).String()
		want := fmt.Sprintf("pid %d (flock) holds the lock and left no holder record: it is not an optimizer", pid)
		if !strings.Contains(first, want) || strings.Contains(first, "stale") || strings.Contains(first, "/gone/repo") ||
			strings.Count(first, ";") != 1 {
			t.Errorf("waiting for %q, want one clause saying %q and nothing of the stale records", first, want)
		}
		if again, _ := p.MachineWait(); again.String() != first {
			t.Errorf("the next look says %q, the first said %q: each change is another line on the terminal", again.String(), first)
		}
		for _, rec := range recs {
			if _, err := os.Stat(rec); !os.IsNotExist(err) {
				t.Errorf("the stale record %s is still there: %v", rec, err)
			}
		}
	})

	// A holder that neither left a record nor shows in the kernel's list
	// (another PID namespace) is described by the lock, the wait's start
	// and how to find it.
	t.Run("CannotBeNamed", func(t *testing.T) {
		since := time.Date(2026, 11, 27, 12, 3, 4, 0, time.Local)
		got := MachineWait{Lock: "/tmp/m.lock", Since: since, Exclusive: true}.String()
		for _, want := range []string{"the lock /tmp/m.lock", "since at least 12:03:04", "`fuser -v /tmp/m.lock`"} {
			if !strings.Contains(got, want) {
				t.Errorf("waiting for %q, want it to say %q", got, want)
			}
		}
	})

	t.Run("RecordsGoWithTheHold", func(t *testing.T) {
		lock := filepath.Join(t.TempDir(), "machine.lock")
		p := open(repo, base, lock)
		s, err := p.Acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		hs := Holders(lock)
		if len(hs) != 1 || hs[0].PID != os.Getpid() || hs[0].What != WhatTesting || !hs[0].Record || hs[0].Stale {
			t.Errorf("while a slot is held, holders = %+v, want this process testing", hs)
		}
		p.Release(s)
		// The kernel may list the lock a moment longer, held through a
		// child git that forked before its exec closed the descriptor;
		// the record goes with the release itself.
		for _, h := range Holders(lock) {
			if h.Record {
				t.Errorf("after the release, a record is left: %+v", h)
			}
		}
	})
}
