package main

import (
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/optimizer-dev/optimizer/worktreepool"
)

// exclusive runs f while holding the machine lock exclusively, as a
// benchmark does. Every optimizer on the machine honours that lock
// (worktreepool.DefaultMachineLock). No other optimizer's tests or
// benchmarks run meanwhile, so they neither disturb f's timings nor are
// disturbed by them. The harness's own pools use a lock of their own (see
// openPool), so they never wait for this one. Function f must not run the
// CLI, which takes the default lock itself. With -no-machine-lock, f just
// runs.
func (h *harness) exclusive(f func() error) error {
	if h.noMachineLock {
		return f()
	}
	path := worktreepool.DefaultMachineLock()
	gate, err := flock(path+".gate", syscall.LOCK_EX)
	if err != nil {
		return err
	}
	lock, err := flock(path, syscall.LOCK_EX)
	gate.Close()
	if err != nil {
		return err
	}
	defer lock.Close()
	return f()
}

// flock opens path, creating it, and waits for its flock.
func flock(path string, how int) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o666)
	if err != nil {
		return nil, fmt.Errorf("open machine lock: %w", err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err == nil {
			return f, nil
		}
		if err != syscall.EINTR {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
	}
}

// repeat runs f n times, each holding the machine exclusively, and returns
// the median time.
func (h *harness) repeat(n int, f func(i int) (time.Duration, error)) (time.Duration, error) {
	ds := make([]time.Duration, 0, n)
	for i := range n {
		var d time.Duration
		err := h.exclusive(func() (err error) { d, err = f(i); return err })
		if err != nil {
			return 0, err
		}
		ds = append(ds, d)
	}
	return median(ds), nil
}
