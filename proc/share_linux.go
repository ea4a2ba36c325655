package proc

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// CPUShare is the share of cpu that a busy thread pinned to it gets over
// d: its CPU time over its wall time. It is what a benchmark pinned there
// can expect now, found before any benchmark runs. It is false when the
// thread cannot be pinned or timed.
func CPUShare(cpu int, d time.Duration) (float64, bool) {
	if cpu < 0 || d <= 0 || !cpuAllowed(cpu) {
		return 0, false
	}
	type result struct {
		share float64
		ok    bool
	}
	done := make(chan result, 1)
	go func() {
		// The thread's affinity changes, so no other goroutine may run on
		// it: a goroutine that exits locked ends its thread.
		runtime.LockOSThread()
		var set unix.CPUSet
		set.Set(cpu)
		if unix.SchedSetaffinity(0, &set) != nil {
			done <- result{}
			return
		}
		cpu0, ok0 := threadCPU()
		start := time.Now()
		for time.Since(start) < d { // reading the clock is the work
		}
		wall := time.Since(start)
		cpu1, ok1 := threadCPU()
		if !ok0 || !ok1 {
			done <- result{}
			return
		}
		done <- result{min(1, (cpu1-cpu0).Seconds()/wall.Seconds()), true}
	}()
	r := <-done
	return r.share, r.ok
}

// threadCPU is the CPU time the calling thread has used.
func threadCPU() (time.Duration, bool) {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
