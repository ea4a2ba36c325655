package worktreepool

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// flockUntilReleased holds lock exclusively with util-linux's flock, a process
// that is not an optimizer, until the returned release is called.
func flockUntilReleased(t *testing.T, lock string) (release func()) {
	t.Helper()
	bin, err := exec.LookPath("flock")
	if err != nil {
		t.Skip("flock (util-linux) is not installed")
	}
	holder := exec.Command(bin, lock, "sh", "-c", "echo locked; exec cat")
	in, _ := holder.StdinPipe()
	out, _ := holder.StdoutPipe()
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	if l, _ := bufio.NewReader(out).ReadString('\n'); l != "locked\n" {
		in.Close()
		holder.Wait()
		t.Fatalf("flock said %q", l)
	}
	done := false
	release = func() {
		if !done {
			done = true
			in.Close()
			holder.Wait()
		}
	}
	t.Cleanup(release)
	return release
}

// waitUntilWaiting waits until one of p's holders waits for the machine.
func waitUntilWaiting(t *testing.T, p *Pool, exclusive bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		if w, ok := p.MachineWait(); ok && w.Exclusive == exclusive {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the holder never waited for the machine lock")
		}
	}
}

// TestPool_MachineLockFIFO: a benchmark waits for the machine, held by
// another process. It is served before a test run that arrived after it,
// while a test run that arrived before it may go first. Without tickets the
// later test run takes the lock shared as soon as it frees, beside the
// earlier one.
func TestPool_MachineLockFIFO(t *testing.T) {
	repo, base := newTestRepo(t)
	lock := filepath.Join(t.TempDir(), "machine.lock")
	open := func() *Pool {
		p, err := Open(context.Background(), Options{Repo: repo, Base: base, Size: 2, MachineLock: lock})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	early, bench, late := open(), open(), open()
	defer closePool(t, early)
	defer closePool(t, bench)
	defer closePool(t, late)
	release := flockUntilReleased(t, lock)
	ctx := context.Background()

	type got struct {
		release func()
	}
	acquire := func(p *Pool, exclusive bool) <-chan got {
		ch := make(chan got, 1)
		go func() {
			if exclusive {
				ss, err := p.AcquireExclusive(ctx)
				if err != nil {
					t.Error(err)
					return
				}
				ch <- got{func() {
					for _, s := range ss {
						p.Release(s)
					}
				}}
				return
			}
			s, err := p.Acquire(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			ch <- got{func() { p.Release(s) }}
		}()
		return ch
	}
	earlyGot := acquire(early, false)
	waitUntilWaiting(t, early, false)
	benchGot := acquire(bench, true)
	waitUntilWaiting(t, bench, true)
	lateGot := acquire(late, false)
	waitUntilWaiting(t, late, false)

	release()
	// The earlier test run and the benchmark may go in either order; the
	// later test run must wait for the benchmark.
	var b got
	for b.release == nil {
		select {
		case e := <-earlyGot:
			e.release()
			earlyGot = nil
		case b = <-benchGot:
		case l := <-lateGot:
			l.release()
			t.Fatal("a test run that arrived after a waiting benchmark got the machine first")
		case <-time.After(time.Minute):
			t.Fatal("the benchmark never got the machine")
		}
	}
	select {
	case <-lateGot:
		t.Fatal("a test run got the machine beside a benchmark")
	default:
	}
	b.release()
	for _, ch := range []<-chan got{earlyGot, lateGot} {
		if ch == nil {
			continue
		}
		select {
		case g := <-ch:
			g.release()
		case <-time.After(time.Minute):
			t.Fatal("a test run never got the machine after the benchmark")
		}
	}
}

// TestPool_MachineTickets: a waiting benchmark's ticket left by a live
// process of another kind keeps new test runs waiting; one left by a process
// that is gone is ignored.
func TestPool_MachineTickets(t *testing.T) {
	repo, base := newTestRepo(t)
	lock := filepath.Join(t.TempDir(), "machine.lock")
	p, err := Open(context.Background(), Options{Repo: repo, Base: base, Size: 1, MachineLock: lock})
	if err != nil {
		t.Fatal(err)
	}
	defer closePool(t, p)
	ticket := func(pid int) string {
		dir := recordsDir(lock)
		if err := os.MkdirAll(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(holderRecord{PID: pid, What: WhatWaiting, Repo: "/elsewhere", Since: time.Now().Add(-time.Minute)})
		path := filepath.Join(dir, "ticket.json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}

	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	ticket(gone.Process.Pid)
	s, err := p.Acquire(context.Background())
	if err != nil {
		t.Fatalf("a ticket of a process that is gone kept a test run out: %v", err)
	}
	p.Release(s)

	live := exec.Command("sleep", "600")
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { live.Process.Kill(); live.Wait() }()
	path := ticket(live.Process.Pid)
	short, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	if s, err := p.Acquire(short); !errors.Is(err, context.DeadlineExceeded) {
		if err == nil {
			p.Release(s)
		}
		t.Errorf("a test run got in ahead of an older waiting benchmark's ticket: %v", err)
	}
	cancel()
	os.Remove(path)
	s, err = p.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p.Release(s)
}
