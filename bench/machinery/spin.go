package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"time"
)

// spinCommand is the hidden sub-command that the CPU-bound test runs: it
// burns a fixed amount of CPU work, so that every candidate's test costs the
// same whatever the scheduling.
const spinCommand = "spin"

var spinSink uint64

func spinMain(args []string) {
	fs := flag.NewFlagSet(spinCommand, flag.ExitOnError)
	n := fs.Int64("n", 1e8, "iterations")
	fs.Parse(args)
	spinSink = spinWork(*n)
}

//go:noinline
func spinWork(n int64) uint64 {
	x := uint64(88172645463325252)
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// spinTest calibrates the CPU-bound test: the shell line that burns about
// want of CPU, and its wall time when it runs alone (median of 3).
func (h *harness) spinTest(ctx context.Context, want time.Duration) (string, time.Duration, error) {
	const probe = int64(2e8)
	cpu, err := spinCPU(ctx, h.spin, probe)
	if err != nil {
		return "", 0, err
	}
	n := max(1, int64(float64(probe)*want.Seconds()/cpu.Seconds()))
	line := fmt.Sprintf("%s %s -n %d", strconv.Quote(h.spin), spinCommand, n)
	alone, err := h.repeat(3, func(int) (time.Duration, error) {
		return timeIt(func() error { _, err := runIn(ctx, "", nil, "sh", "-c", line); return err })
	})
	return line, alone, err
}

// spinCPU runs the spin command for n iterations and returns its CPU time.
func spinCPU(ctx context.Context, bin string, n int64) (time.Duration, error) {
	cmd := exec.CommandContext(ctx, bin, spinCommand, "-n", strconv.FormatInt(n, 10))
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return 0, err
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}
