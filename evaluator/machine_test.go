package evaluator

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/store"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// heldMachine is a pool that waits for the machine while wait is set.
type heldMachine struct {
	mu   sync.Mutex
	wait *worktreepool.MachineWait
}

func (h *heldMachine) MachineWait() (worktreepool.MachineWait, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.wait == nil {
		return worktreepool.MachineWait{}, false
	}
	return *h.wait, true
}

func (h *heldMachine) set(w *worktreepool.MachineWait) {
	h.mu.Lock()
	h.wait = w
	h.mu.Unlock()
}

// jobStore opens a store in a test directory, closed at the test's end,
// with a job job1 recorded: a job made by hand can record its events.
func jobStore(t *testing.T) *store.DB {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "optimizer.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.CreateJob(ctx, store.Job{ID: "job1", Kind: "run"}); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestSayWaits_Repeats: a wait that goes on unchanged is said again once
// machineRepeat has passed since it was last said, not at every poll. It
// names who holds the machine and since when. The store records it once,
// and its end is said once. The clock and the ticks are the test's: nothing
// sleeps.
func TestSayWaits_Repeats(t *testing.T) {
	ctx := context.Background()
	db := jobStore(t)
	events := make(chan Event, 100)
	j := &job{id: "job1", db: db, log: slog.New(slog.NewTextHandler(io.Discard, nil)), opts: Options{Events: events}}

	t0 := time.Date(2026, 1, 1, 12, 3, 0, 0, time.Local)
	held := &heldMachine{wait: &worktreepool.MachineWait{Lock: "/tmp/optimizer-machine.lock", Since: t0, Exclusive: true,
		Holders: []worktreepool.Holder{{PID: 12, What: worktreepool.WhatBenchmarking, Repo: "/src/r", Since: t0.Add(-time.Minute), Record: true, Exclusive: true}}}}
	tick, quit, done := make(chan time.Time), make(chan struct{}), make(chan struct{})
	go func() {
		j.sayWaits(ctx, held, tick, quit)
		close(done)
	}()
	// at polls once at t0+s; tick is unbuffered, so the poll before it
	// has been handled.
	at := func(s time.Duration) { tick <- t0.Add(s) }
	said := func() []string {
		var out []string
		for {
			select {
			case e := <-events:
				if e.Kind != EventWaiting {
					t.Errorf("event %s, want only waits", e.Kind)
				}
				out = append(out, e.Message)
			default:
				return out
			}
		}
	}
	want := "waiting for the machine: optimizer pid 12 is benchmarking /src/r, since 12:02"
	at(0)
	at(time.Second) // the poll after this one's message is handled
	if got := said(); len(got) != 1 || got[0] != want {
		t.Fatalf("the wait's start said %q, want once %q", got, want)
	}
	for s := 2 * time.Second; s < machineRepeat; s += time.Second {
		at(s)
	}
	at(machineRepeat) // said again once the repeat interval has passed
	at(machineRepeat + time.Second)
	if got := said(); len(got) != 1 || got[0] != want {
		t.Fatalf("within %s of the wait's start: %q, want it said again once, at %s", machineRepeat+time.Second, got, machineRepeat)
	}
	at(2*machineRepeat - time.Second)
	at(2 * machineRepeat)
	at(2*machineRepeat + time.Second)
	if got := said(); len(got) != 1 || got[0] != want {
		t.Fatalf("the second repeat: %q, want one more", got)
	}
	held.set(nil)
	at(2*machineRepeat + 2*time.Second)
	at(2*machineRepeat + 3*time.Second)
	if got := said(); len(got) != 1 || got[0] != "" {
		t.Fatalf("the wait's end: %q, want one empty message", got)
	}
	close(quit)
	<-done
	if got := said(); len(got) != 0 {
		t.Errorf("after the wait ended, stop said %q", got)
	}
	rows, err := db.Events(ctx, "job1")
	if err != nil {
		t.Fatal(err)
	}
	var waits []string
	for _, r := range rows {
		if r.Kind == "machine-wait" {
			waits = append(waits, r.Message)
		}
	}
	if len(waits) != 1 || !strings.HasPrefix(waits[0], want) {
		t.Errorf("the store's machine-wait events = %q, want the wait once", waits)
	}
}
