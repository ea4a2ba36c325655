package gobench

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/proc"
)

// Place says how a benchmark process runs: pinned to CPU (-1: unpinned),
// capped at MemLimit bytes of address space (0: no cap), and in Sandbox when
// it is set (the sandbox must let the process read the binary).
type Place struct {
	CPU      int
	MemLimit int64
	Sandbox  *proc.Sandbox
}

// Calibrate finds the iteration count at which one run of benchmark name (a
// top-level name) takes about target. It runs bin with
// "-test.run=^$ -test.bench=^NAME$ -test.benchtime=TARGET -test.count=1" in
// dir, placed as at says, and returns the iteration count the
// testing package settled on: the smallest over the benchmark's
// sub-benchmarks if it has several, and at least 1. A relative bin is
// relative to the current directory.
func Calibrate(ctx context.Context, bin, dir, name string, target time.Duration, at Place) (int64, error) {
	if target <= 0 {
		return 0, fmt.Errorf("calibrate %s: target %s is not positive", name, target)
	}
	ms, err := runBench(ctx, bin, dir, at, benchArgs(name, target.String()))
	if err != nil {
		return 0, err
	}
	n := ms[0].Iterations
	for _, m := range ms[1:] {
		n = min(n, m.Iterations)
	}
	return max(n, 1), nil
}

// Sample runs benchmark name once for exactly n iterations: bin with
// "-test.run=^$ -test.bench=^NAME$ -test.benchtime=Nx -test.count=1
// -test.benchmem [extra...]" in dir, placed as at says, and
// returns its measurements. A non-zero exit is an error carrying the tail of
// the output, and so is an output without results ([ErrNoResult]). When ctx
// is done the process group is killed and the error wraps ctx.Err().
func Sample(ctx context.Context, bin, dir, name string, n int64, at Place, extra []string) ([]Measurement, error) {
	if n < 1 {
		return nil, fmt.Errorf("sample %s: iteration count %d is not positive", name, n)
	}
	args := slices.Concat(benchArgs(name, strconv.FormatInt(n, 10)+"x"), []string{"-test.benchmem"}, extra)
	return runBench(ctx, bin, dir, at, args)
}

// benchArgs returns the flags that run benchmark name alone, once, for
// benchtime.
func benchArgs(name, benchtime string) []string {
	return []string{
		"-test.run=^$",
		"-test.bench=^" + regexp.QuoteMeta(name) + "$",
		"-test.benchtime=" + benchtime,
		"-test.count=1",
	}
}

// runBench runs bin with args and returns the results it prints, at least
// one. The results are read from the whole stdout stream, so that they
// survive however much else the benchmark prints.
func runBench(ctx context.Context, bin, dir string, at Place, args []string) ([]Measurement, error) {
	bin, err := filepath.Abs(bin)
	if err != nil {
		return nil, err
	}
	var w resultWriter
	c := proc.Cmd{Dir: dir, Args: slices.Concat([]string{bin}, args), CPU: at.CPU, Stdout: &w, Sandbox: at.Sandbox, MemLimit: at.MemLimit}
	res, err := run(ctx, filepath.Base(bin), c)
	if err != nil {
		return nil, err
	}
	ms, err := ParseOutput(w.bytes())
	if err != nil {
		return nil, err
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("%w:\n%s", ErrNoResult, tail(res.Output))
	}
	return ms, nil
}
