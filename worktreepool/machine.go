package worktreepool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/optimizer-dev/optimizer/proc"
)

// DefaultMachineLock is the file whose flock orders the work of every pool
// on the machine, whatever process it is in, unless Options.MachineLock
// names another.
func DefaultMachineLock() string { return filepath.Join(os.TempDir(), "optimizer-machine.lock") }

// machineWait is the longest pause between tries for the machine lock.
const machineWait = 50 * time.Millisecond

// machineHold is one hold of the machine lock, with the record that says so
// (see Holders). Close releases both.
type machineHold struct {
	f      *os.File
	record string
}

func (h *machineHold) Close() {
	if h.record != "" {
		os.Remove(h.record) // before the lock: a record never outlives its hold
	}
	h.f.Close()
}

// holdMachine takes the machine lock, shared for a slot holder or exclusive
// for an exclusive holder, waiting until ctx is done, and leaves a record of
// the hold beside it. The hold keeps the lock until it is closed. A
// benchmark in one optimizer then never runs beside another optimizer's
// tests or benchmarks. While it waits, the pool's waits say so.
//
// flock makes no promise of fairness, so the lock is taken in ticket order.
// An exclusive waiter's ticket is its "waiting" record, written before it
// waits. It tries for the lock only once no older live ticket is left, and a
// shared holder that finds a ticket older than its own arrival waits behind
// it. Benchmarks are so served first come, first served, before any test
// run that arrives after them; tickets of processes that are gone are ignored.
// An exclusive waiter also holds the gate file beside the lock, shared, so
// that the kernel's lock list shows it (see Holders).
func (p *Pool) holdMachine(ctx context.Context, exclusive bool) (*machineHold, error) {
	how, what := syscall.LOCK_SH, WhatTesting
	if exclusive {
		how, what = syscall.LOCK_EX, WhatBenchmarking
	}
	blocked, done := p.waits.start(exclusive)
	defer done()
	arrived := time.Now()
	ticket := ""
	if exclusive {
		gate, err := flockFile(ctx, p.machine+".gate", syscall.LOCK_SH, blocked, nil)
		if err != nil {
			return nil, err
		}
		defer gate.Close()
		if ticket = writeRecord(p.machine, WhatWaiting, p.repo); ticket != "" {
			defer os.Remove(ticket)
		}
	}
	turn := func() bool { return !olderTicket(p.machine, ticket, arrived) }
	f, err := flockFile(ctx, p.machine, how, blocked, turn)
	if err != nil {
		return nil, err
	}
	return &machineHold{f: f, record: writeRecord(p.machine, what, p.repo)}, nil
}

// olderTicket reports whether a live exclusive waiter's ticket beside lock
// is ahead of a holder that arrived at arrived, whose own ticket (if any)
// is mine. Ties in time go by the ticket's file name.
func olderTicket(lock, mine string, arrived time.Time) bool {
	dir := recordsDir(lock)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	me := filepath.Base(mine)
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".json") || name == me {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue // released meanwhile
		}
		var r holderRecord
		if json.Unmarshal(b, &r) != nil || r.What != WhatWaiting || r.PID <= 0 {
			continue // no waiter's ticket: what is no record holds no place
		}
		if r.Since.After(arrived) || (r.Since.Equal(arrived) && (mine == "" || name > me)) {
			continue
		}
		if !proc.Exists(r.PID) {
			continue // its process is gone: the ticket holds nothing
		}
		return true
	}
	return false
}

// flockFile opens path, creating it, and takes its flock, trying until ctx
// is done. It tries only when turn, if not nil, says it is its turn, and
// calls blocked each time it cannot have the lock.
func flockFile(ctx context.Context, path string, how int, blocked func(), turn func() bool) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o666)
	if err != nil {
		return nil, fmt.Errorf("open machine lock: %w", err)
	}
	for delay := time.Millisecond; ; delay = min(2*delay, machineWait) {
		var err error = syscall.EWOULDBLOCK
		if turn == nil || turn() {
			err = syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		}
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		blocked()
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(delay):
		}
	}
}

// waits keeps the pool's holders that are blocked on the machine lock now.
type waits struct {
	mu   sync.Mutex
	next int
	on   map[int]waiting
}

type waiting struct {
	since     time.Time
	exclusive bool
}

// start registers a holder about to try for the lock. blocked marks it
// waiting, from its first call on; done forgets it.
func (w *waits) start(exclusive bool) (blocked, done func()) {
	w.mu.Lock()
	w.next++
	id := w.next
	w.mu.Unlock()
	var once sync.Once
	blocked = func() {
		once.Do(func() {
			w.mu.Lock()
			if w.on == nil {
				w.on = map[int]waiting{}
			}
			w.on[id] = waiting{since: time.Now(), exclusive: exclusive}
			w.mu.Unlock()
		})
	}
	done = func() {
		w.mu.Lock()
		delete(w.on, id)
		w.mu.Unlock()
	}
	return blocked, done
}

// longest is the earliest start among the current waits, and whether any
// is exclusive; ok is false when nobody waits.
func (w *waits) longest() (since time.Time, exclusive, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, x := range w.on {
		if !ok || x.since.Before(since) {
			since = x.since
		}
		exclusive = exclusive || x.exclusive
		ok = true
	}
	return since, exclusive, ok
}

// MachineWait reports whether a holder of this pool is waiting now for the
// machine lock, held by another pool or process, and who holds it. A
// shared holder waits only for exclusive holders, so only those are named
// to it. It is safe for concurrent use, and reads the holders' records and
// the kernel's lock list only when someone waits.
func (p *Pool) MachineWait() (MachineWait, bool) {
	since, exclusive, ok := p.waits.longest()
	if !ok {
		return MachineWait{}, false
	}
	w := MachineWait{Lock: p.machine, Since: since, Exclusive: exclusive}
	self := os.Getpid()
	for _, h := range Holders(p.machine) {
		if h.PID == self && h.What == WhatWaiting {
			continue // this process's own waiter at the gate
		}
		if exclusive || h.Exclusive || h.Stale {
			w.Holders = append(w.Holders, h)
		}
	}
	return w, true
}
