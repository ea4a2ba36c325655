package profiler

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/optimizer-dev/optimizer/proc"
)

// Defaults for CaptureOptions.
const (
	// DefaultBenchtime gives a few hundred CPU samples per benchmark at the
	// profiler's 100 Hz (2s gave under 150 on the fixture), plus the
	// benchmark's calibration runs.
	DefaultBenchtime      = "3s"
	DefaultCaptureTimeout = 10 * time.Minute
	captureOutput         = 64 << 10 // bytes of output kept for error messages
)

// CaptureOptions say which test binary to profile, on which benchmarks, and
// where the profiles go.
type CaptureOptions struct {
	Binary string // test binary, from go test -c -trimpath
	Dir    string // directory to run in: the package's directory in a slot
	Bench  string // -test.bench regexp; "" means "."
	// Benchtime is -test.benchtime: a duration ("2s") or an iteration
	// count ("500x"). "" means DefaultBenchtime.
	Benchtime string
	// CPU >= 0 pins the run to that CPU (taskset -c), as phase 2 does;
	// -1 runs unpinned. Where pinning is impossible the run goes on unpinned.
	CPU int
	// Out is where the CPU profile is written (-test.cpuprofile).
	Out string
	// MemOut, when set, is where the memory profile is written
	// (-test.memprofile), whose alloc_space Summarize reads.
	MemOut string
	// MemRate is -test.memprofilerate. 0 keeps the runtime's sampling (one
	// allocation per 512 KiB), cheap enough to share the CPU run. 1 records
	// every allocation, which slows allocation down. With Out also set, the
	// memory profile is then taken in a second run of its own.
	MemRate int
	// Timeout bounds each run; 0 means DefaultCaptureTimeout.
	Timeout time.Duration
	// Extra arguments for the binary, after the profiler's own (for
	// example the user's -test.benchmem or -test.cpu).
	Extra []string
	// Sandbox, when set, runs the binary in it; it must let the binary be
	// read and the profiles be written.
	Sandbox *proc.Sandbox
}

// benchLine matches a benchmark result line of the Go benchmark format.
var benchLine = regexp.MustCompile(`(?m)^Benchmark\S*\s+\d+\s`)

// Capture runs o.Binary's benchmarks matching o.Bench with profiling on and
// writes the profiles to o.Out and o.MemOut. The process runs in its own
// process group, killed whole when ctx is done or the run times out. It
// fails when the binary fails, runs no benchmark, or writes no profile; the
// error then carries the end of the binary's output.
func Capture(ctx context.Context, o CaptureOptions) error {
	if o.Out == "" && o.MemOut == "" {
		return ErrNoProfileOut
	}
	bin, err := filepath.Abs(o.Binary)
	if err != nil {
		return fmt.Errorf("find test binary: %w", err)
	}
	o.Binary = bin
	for _, p := range []*string{&o.Out, &o.MemOut} {
		if *p == "" {
			continue
		}
		if *p, err = filepath.Abs(*p); err != nil {
			return fmt.Errorf("resolve profile path: %w", err)
		}
		if err := os.MkdirAll(filepath.Dir(*p), 0o755); err != nil {
			return fmt.Errorf("create profile directory: %w", err)
		}
	}
	if o.Out != "" && o.MemOut != "" && o.MemRate > 0 {
		cpuOnly, memOnly := o, o
		cpuOnly.MemOut, memOnly.Out = "", ""
		if err := captureRun(ctx, cpuOnly); err != nil {
			return err
		}
		return captureRun(ctx, memOnly)
	}
	return captureRun(ctx, o)
}

// captureRun runs the binary once with the profiles o asks for.
func captureRun(ctx context.Context, o CaptureOptions) error {
	name := filepath.Base(o.Binary)
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultCaptureTimeout
	}
	res, err := proc.Run(ctx, proc.Cmd{Dir: o.Dir, Args: captureArgs(o), Timeout: timeout,
		CPU: o.CPU, MaxOutput: captureOutput, Sandbox: o.Sandbox})
	if err != nil {
		return fmt.Errorf("run %s: %w", name, err)
	}
	switch {
	case res.TimedOut:
		return fmt.Errorf("run %s: timed out after %s", name, timeout)
	case res.Canceled:
		return fmt.Errorf("run %s: %w", name, context.Cause(ctx))
	case res.ExitCode != 0:
		return fmt.Errorf("run %s: exit status %d: %s", name, res.ExitCode, tail(res.Output, 15))
	case !benchLine.Match(res.Output):
		return fmt.Errorf("run %s -test.bench=%q: %w", name, o.Bench, ErrNoBenchmark)
	}
	for _, p := range []string{o.Out, o.MemOut} {
		if p == "" {
			continue
		}
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
			return fmt.Errorf("run %s: no profile written to %s", name, filepath.Base(p))
		}
	}
	return nil
}

// captureArgs returns the binary's argv: benchmarks only, once, profiled.
func captureArgs(o CaptureOptions) []string {
	bench, bt := o.Bench, o.Benchtime
	if bench == "" {
		bench = "."
	}
	if bt == "" {
		bt = DefaultBenchtime
	}
	args := []string{o.Binary, "-test.run=^$", "-test.bench=" + bench, "-test.benchtime=" + bt, "-test.count=1"}
	if o.Out != "" {
		args = append(args, "-test.cpuprofile="+o.Out)
	}
	if o.MemOut != "" {
		args = append(args, "-test.memprofile="+o.MemOut)
		if o.MemRate > 0 {
			args = append(args, "-test.memprofilerate="+strconv.Itoa(o.MemRate))
		}
	}
	return append(args, o.Extra...)
}

// tail returns the last n lines of out, trimmed.
func tail(out []byte, n int) string {
	s := proc.Tail(bytes.TrimRight(out, "\n\r\t "), n)
	if s == "" {
		return "no output"
	}
	return s
}
