// Command startup measures how what a benchmark process does at start-up
// changes its timed region (issue 36: the no-op candidate initio won
// under load). It builds the accuracy fixture's test binary as base and
// in variants that only add an init():
//
//   - io: testdata/noop's initio, which writes, syncs and reads back 4 MiB;
//   - sleep: sleeps 100 ms, blocking without I/O;
//   - spin: burns 100 ms of CPU without blocking.
//
// Each variant is built twice: with the file named probe.go, which sorts
// before sumsq.go and moves SumSquares, and as zprobe.go, which sorts
// after it and leaves SumSquares and its benchmark where they are. "aa" is
// a copy of base's binary. Then, round after round, every binary runs
// BenchmarkSumSquares once for the same iteration count, pinned to the
// last CPU, in an order rotated each round, and the harness compares each
// with base's run of the same round.
//
//	go run ./bench/startup                 # 40 rounds, about 3 minutes at rest
//	go run ./bench/startup -rounds 80      # run it again beside other work: under load
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/gobench"
	"github.com/optimizer-dev/optimizer/machine"
	"github.com/optimizer-dev/optimizer/stats"
	"github.com/optimizer-dev/optimizer/testdata"
)

const bench = "BenchmarkSumSquares"

// probes are the init() files of the variants, by name. io's is read from
// testdata's no-op set.
var probes = map[string]string{
	"sleep": "package sumsq\n\nimport \"time\"\n\n// init blocks for 100 ms without I/O.\nfunc init() { time.Sleep(100 * time.Millisecond) }\n",
	"spin": "package sumsq\n\nimport \"time\"\n\nvar spun int\n\n// init burns 100 ms of CPU without blocking.\n" +
		"func init() {\n\tfor end := time.Now().Add(100 * time.Millisecond); time.Now().Before(end); {\n\t\tspun++\n\t}\n}\n",
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "startup:", err)
		}
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("startup", flag.ContinueOnError)
	rounds := fs.Int("rounds", 40, "rounds: every binary runs once a round")
	sample := fs.Duration("sample", 300*time.Millisecond, "base's calibrated sample length")
	iters := fs.Int64("n", 0, "iterations a run, in place of calibrating base to -sample")
	work := fs.String("work", "", "work directory, kept (default: a temporary one, removed)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *rounds < 2 {
		return fmt.Errorf("-rounds %d: want at least 2", *rounds)
	}
	dir := *work
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "startup-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	bins, err := build(ctx, dir)
	if err != nil {
		return err
	}
	at := gobench.Place{CPU: -1}
	if runtime.NumCPU() > 1 {
		at.CPU = runtime.NumCPU() - 1
	}
	n, how := *iters, "set by -n"
	if n <= 0 {
		counts, err := gobench.Calibrate(ctx, bins["base"], dir, "^"+bench+"$", *sample, at, nil)
		if err != nil {
			return err
		}
		n, how = counts[0].N, fmt.Sprintf("calibrated to %s at a CPU share of %.2f (0: the CPU was not contended)", *sample, counts[0].Share)
	}
	fmt.Fprintf(stdout, "# bench/startup, %s\n\n- command: `go run ./bench/startup %s`\n- %d rounds of %d iterations a run (%s), pinned to CPU %d; load average at the start %s\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), strings.Join(args, " "), *rounds, n, how, at.CPU, machine.Load())
	names := variantNames()
	secs := map[string][]float64{} // by variant, a time per op per round
	for r := range *rounds {
		for i := range names {
			v := names[(i+r)%len(names)]
			ms, err := gobench.Sample(ctx, bins[v], dir, bench, n, at, nil)
			if err != nil {
				return fmt.Errorf("%s: %w", v, err)
			}
			secs[v] = append(secs[v], secPerOp(ms))
		}
	}
	fmt.Fprintf(stdout, "- load average at the end %s\n\n", machine.Load())
	writeTable(stdout, names, secs)
	return nil
}

// variantNames is base, aa, then each probe early and late.
func variantNames() []string {
	out := []string{"base", "aa"}
	for _, p := range []string{"io", "sleep", "spin"} {
		out = append(out, p, "late-"+p)
	}
	return out
}

// build writes base and every variant of the fixture under dir, builds
// their test binaries, and returns them by variant name.
func build(ctx context.Context, dir string) (map[string]string, error) {
	initio, err := fs.ReadFile(testdata.NoOp, "initio/sumsq/probe.go")
	if err != nil {
		return nil, err
	}
	files := map[string]string{"io": string(initio), "sleep": probes["sleep"], "spin": probes["spin"]}
	bins := map[string]string{}
	for _, v := range variantNames() {
		if v == "aa" {
			continue
		}
		src := filepath.Join(dir, "src", v)
		if err := testdata.WriteFixture(src); err != nil {
			return nil, err
		}
		if p, ok := strings.CutPrefix(v, "late-"); ok {
			err = os.WriteFile(filepath.Join(src, "sumsq", "zprobe.go"), []byte(files[p]), 0o644)
		} else if v != "base" {
			err = os.WriteFile(filepath.Join(src, "sumsq", "probe.go"), []byte(files[v]), 0o644)
		}
		if err != nil {
			return nil, err
		}
		bins[v] = filepath.Join(dir, v+".test")
		if err := gobench.Build(ctx, src, testdata.FixtureModule+"/sumsq", bins[v], nil); err != nil {
			return nil, fmt.Errorf("build %s: %w", v, err)
		}
	}
	// aa is a byte-identical copy of base's binary in another file.
	b, err := os.ReadFile(bins["base"])
	if err != nil {
		return nil, err
	}
	bins["aa"] = filepath.Join(dir, "aa.test")
	return bins, os.WriteFile(bins["aa"], b, 0o755)
}

// secPerOp is a sample's time per op, in seconds.
func secPerOp(ms []gobench.Measurement) float64 {
	for _, m := range ms {
		if m.Unit == "sec/op" {
			return m.Value
		}
	}
	return math.NaN()
}

// writeTable compares every variant with base, round by round: the
// judge's estimate and 95% interval of the speedup, the rounds it was
// faster in, and an exact two-sided sign test.
func writeTable(w io.Writer, names []string, secs map[string][]float64) {
	fmt.Fprintln(w, "| variant | speedup over base [95% interval] | rounds faster | sign test p |")
	fmt.Fprintln(w, "|---|---|---:|---:|")
	base := secs["base"]
	for _, v := range names[1:] {
		var pairs []stats.Pair
		faster := 0
		for i, s := range secs[v] {
			pairs = append(pairs, stats.Pair{Base: base[i], Cand: s})
			if s < base[i] {
				faster++
			}
		}
		e, err := stats.Compare(pairs, 0.05)
		if err != nil {
			fmt.Fprintf(w, "| %s | %v | | |\n", v, err)
			continue
		}
		fmt.Fprintf(w, "| %s | %.3f× [%.3f, %.3f] | %d of %d | %.2g |\n", v, e.Speedup, e.Low, e.High, faster, len(pairs), signP(faster, len(pairs)))
	}
}

// signP is the exact two-sided p-value of k successes in n fair coin
// tosses.
func signP(k, n int) float64 {
	k = min(k, n-k)
	tail := 0.0
	for i := 0; i <= k; i++ {
		tail += math.Exp(lchoose(n, i) - float64(n)*math.Ln2)
	}
	return min(1, 2*tail)
}

func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}
