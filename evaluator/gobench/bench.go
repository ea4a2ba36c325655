package gobench

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/proc"
)

// Place says how a benchmark process runs: pinned to CPU (-1: unpinned),
// and capped at MemLimit bytes of address space (0: no cap). It runs in
// Sandbox when that is set; the sandbox must let the process read the
// binary.
type Place struct {
	CPU      int
	MemLimit int64
	Sandbox  *proc.Sandbox
	Env      []string // KEY=VALUE added to the process's environment
}

// Count is the iteration count calibrated for one benchmark.
type Count struct {
	Bench    string // full name, as in Measurement: "BenchmarkX/n=10"
	N        int64
	SecPerOp float64 // the calibration run's time per op, in seconds (0 when it printed none)
	// Share is the calibration run's CPU time over its wall time, when its
	// CPU was busy throughout: under 1 when it shared the CPU with other
	// work. 0 is unknown, or a CPU that was idle at times.
	Share float64 `json:",omitempty"`
}

// busyShare is the least share of the time a CPU must be busy for a run
// on it to count as contended, and the share of the CPU below which the
// run counts as having shared it.
const busyShare = 0.9

// MaxCPUScale bounds how much a busy calibration's counts grow, and with
// them a sample's wall time on a busy CPU.
const MaxCPUScale = 8

// CPUScaled is n iterations, calibrated to a wall time while the process
// got share of a CPU, scaled to take that time in CPU time: n/share, at
// most MaxCPUScale×n. A share of busyShare or more, or unknown, leaves n.
// So a sample on a contended CPU still holds a full sample's work, and a
// few milliseconds that one side gains from the scheduler stay a small
// part of it (docs/measuring.md, "Blocking at start-up, measured").
func CPUScaled(n int64, share float64) int64 {
	return int64(math.Ceil(float64(n) * CPUScale(share)))
}

// CPUScale is the factor CPUScaled applies at share: 1 when the CPU was
// not contended or the share is unknown.
func CPUScale(share float64) float64 {
	if share <= 0 || share >= busyShare {
		return 1
	}
	return min(1/share, MaxCPUScale)
}

// Calibrate runs each benchmark that pattern selects for about target. The
// pattern is a -test.bench value, such as Filter.Pattern gives. It returns
// the iteration count the testing package settled on for each benchmark that
// printed a result, scaled by CPUScaled to the run's share of its CPU.
// Sub-benchmarks each get their own, in the order they ran. It runs bin with
// "-test.run=^$ -test.bench=PATTERN -test.benchtime=TARGET -test.count=1
// [extra...]" in dir, placed as at says. The extra arguments are the user's
// --bench-arg, which calibration needs as much as sampling does. A relative
// bin is relative to the current directory. With no result at all, the error
// is a *NoResultError carrying what the benchmark said, such as its b.Skip
// message.
func Calibrate(ctx context.Context, bin, dir, pattern string, target time.Duration, at Place, extra []string) ([]Count, error) {
	if target <= 0 {
		return nil, fmt.Errorf("calibrate %s: target %s is not positive", pattern, target)
	}
	cpu := at.CPU
	if !proc.CanPin(cpu) {
		cpu = -1
	}
	before, probed := proc.ReadCPUTimes(cpu)
	ms, res, err := runBench(ctx, bin, dir, at, benchArgs(pattern, target.String()), extra)
	if err != nil {
		return nil, err
	}
	after, ok := proc.ReadCPUTimes(cpu)
	var share float64
	if probed && ok {
		share = contendedShare(before, after, res)
	}
	var out []Count
	for _, m := range ms {
		if len(out) == 0 || out[len(out)-1].Bench != m.Bench {
			out = append(out, Count{Bench: m.Bench, N: CPUScaled(max(m.Iterations, 1), share), Share: share})
		}
		if m.Unit == "sec/op" {
			out[len(out)-1].SecPerOp = m.Value
		}
	}
	return out, nil
}

// contendedShare is the share of its CPU that run res got, when that CPU
// was busy throughout the run (before and after are its times); 0
// otherwise. A benchmark that waits on I/O leaves its CPU idle, so its
// own low share does not count as contention.
func contendedShare(before, after proc.CPUTimes, res proc.Result) float64 {
	if res.Wall <= 0 || res.CPU <= 0 {
		return 0
	}
	if busy, ok := proc.BusyShare(before, after); !ok || busy < busyShare {
		return 0
	}
	return res.CPU.Seconds() / res.Wall.Seconds()
}

// Sample runs benchmark name once for exactly n iterations, and returns its
// measurements. The name is a full one; a top-level one runs with all its
// sub-benchmarks. It runs bin with "-test.run=^$ -test.bench=Pattern(name)
// -test.benchtime=Nx -test.count=1 -test.benchmem [extra...]" in dir, placed
// as at says. A non-zero exit is an error carrying the tail of the output,
// and so is an output without results ([ErrNoResult]). When ctx is done the
// process group is killed and the error wraps ctx.Err().
func Sample(ctx context.Context, bin, dir, name string, n int64, at Place, extra []string) ([]Measurement, error) {
	if n < 1 {
		return nil, fmt.Errorf("sample %s: iteration count %d is not positive", name, n)
	}
	args := append(benchArgs(Pattern(name), strconv.FormatInt(n, 10)+"x"), "-test.benchmem")
	ms, _, err := runBench(ctx, bin, dir, at, args, extra)
	return ms, err
}

// benchArgs returns the flags that run the benchmarks pattern selects,
// once, for benchtime.
func benchArgs(pattern, benchtime string) []string {
	return []string{
		"-test.run=^$",
		"-test.bench=" + pattern,
		"-test.benchtime=" + benchtime,
		"-test.count=1",
	}
}

// NoResultError is the error of a run that exited zero without printing a
// benchmark result. It wraps ErrNoResult.
type NoResultError struct {
	// Said is what the benchmarks said about it: their --- SKIP lines and
	// the log lines under them, or else the tail of the output.
	Said string
}

func (e *NoResultError) Error() string { return fmt.Sprintf("%v:\n%s", ErrNoResult, e.Said) }

func (e *NoResultError) Unwrap() error { return ErrNoResult }

// runBench runs bin with args, then extra, and returns the results it
// prints, at least one, and how the process ran. The results are read from
// the whole stdout stream, so that they survive however much else the
// benchmark prints. Unless extra sets -test.cpu, runBench sets it to the
// GOMAXPROCS the process would have (1 when pinned). Then a name's "-N"
// ending is known to be GOMAXPROCS's, and a sub-benchmark called "size-1"
// keeps its name. When there is no result it runs once more with -test.v, to
// say why.
func runBench(ctx context.Context, bin, dir string, at Place, args, extra []string) ([]Measurement, proc.Result, error) {
	bin, err := filepath.Abs(bin)
	if err != nil {
		return nil, proc.Result{}, err
	}
	procs := 0 // unknown
	if !slices.ContainsFunc(extra, isCPUFlag) {
		procs = runtime.GOMAXPROCS(0)
		if proc.CanPin(at.CPU) {
			procs = 1
		}
		args = append(args, "-test.cpu="+strconv.Itoa(procs))
	}
	var w resultWriter
	c := proc.Cmd{Dir: dir, Args: slices.Concat([]string{bin}, args, extra), CPU: at.CPU, Stdout: &w,
		MemLimit: at.MemLimit, Sandbox: at.Sandbox, Env: at.Env}
	res, err := run(ctx, filepath.Base(bin), c)
	if err != nil {
		return nil, res, err
	}
	ms, err := parseOutput(w.bytes(), procs)
	if err != nil {
		return nil, res, err
	}
	if len(ms) == 0 {
		return nil, res, &NoResultError{Said: said(ctx, c, res.Output)}
	}
	return ms, res, nil
}

// isCPUFlag reports whether arg sets -test.cpu.
func isCPUFlag(arg string) bool {
	name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	return name == "test.cpu"
}

// said returns the SKIP lines of a verbose run of c, with their log lines,
// or else the tail of out.
func said(ctx context.Context, c proc.Cmd, out []byte) string {
	c.Args = append(slices.Clone(c.Args), "-test.v=true")
	c.Stdout = nil
	if res, err := run(ctx, "verbose run", c); err == nil {
		if s := skips(res.Output); s != "" {
			return s
		}
	}
	return tail(out)
}

// skips returns the "--- SKIP: BenchmarkX" lines of out, each with the
// indented log lines that belong to it. With -test.v the testing package
// prints them before the SKIP line (under the benchmark's name); older
// versions print them after it.
func skips(out []byte) string {
	var (
		b       strings.Builder
		pending []string // indented lines since the last other line
		after   bool     // in the indented lines after a SKIP line
	)
	for _, line := range strings.Split(string(out), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "--- SKIP: Benchmark"):
			b.WriteString(trimmed + "\n")
			for _, p := range pending {
				b.WriteString("    " + p + "\n")
			}
			pending, after = nil, true
		case strings.HasPrefix(line, " ") && trimmed != "":
			if after {
				b.WriteString("    " + trimmed + "\n")
			} else {
				pending = append(pending, trimmed)
			}
		default:
			pending, after = nil, false
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// List returns the top-level benchmarks that test binary bin has, in the
// order it lists them ("-test.list=^Benchmark"), without running any.
func List(ctx context.Context, bin, dir string, at Place) ([]string, error) {
	bin, err := filepath.Abs(bin)
	if err != nil {
		return nil, err
	}
	res, err := run(ctx, filepath.Base(bin), proc.Cmd{Dir: dir, Args: []string{bin, "-test.list=^Benchmark"}, CPU: -1,
		MemLimit: at.MemLimit, Sandbox: at.Sandbox})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, line := range strings.Split(string(res.Output), "\n") {
		if line = strings.TrimSpace(line); isBenchName(line) {
			names = append(names, line)
		}
	}
	return names, nil
}
