package worktreepool

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// DefaultMachineLock is the file whose flock orders the work of every pool
// on the machine, whatever process it is in, unless Options.MachineLock
// names another.
func DefaultMachineLock() string { return filepath.Join(os.TempDir(), "optimizer-machine.lock") }

// machineWait is the longest pause between tries for the machine lock.
const machineWait = 50 * time.Millisecond

// holdMachine takes the machine lock, shared for a slot holder or exclusive
// for an exclusive holder, waiting until ctx is done. The returned file holds
// the lock until it is closed. A benchmark in one optimizer then never runs
// beside another optimizer's tests or benchmarks.
//
// flock makes no promise of fairness, so a gate file beside the lock gives
// exclusive holders preference: an exclusive waiter holds the gate while it
// waits, and shared holders pass the gate on their way in. Otherwise another
// pool's steady stream of tests could keep a benchmark waiting forever.
func holdMachine(ctx context.Context, path string, exclusive bool) (*os.File, error) {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	gate, err := flockFile(ctx, path+".gate", how)
	if err != nil {
		return nil, err
	}
	defer gate.Close()
	return flockFile(ctx, path, how)
}

// flockFile opens path, creating it, and takes its flock, trying until ctx
// is done.
func flockFile(ctx context.Context, path string, how int) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o666)
	if err != nil {
		return nil, fmt.Errorf("open machine lock: %w", err)
	}
	for delay := time.Millisecond; ; delay = min(2*delay, machineWait) {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(delay):
		}
	}
}
