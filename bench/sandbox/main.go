// Command sandbox measures what the bwrap sandbox costs (issue 21): the
// start-up it adds to each process, and whether it shifts a benchmark's
// result. It runs an A/A comparison of the fixture's benchmark run plainly
// and sandboxed, interleaved. It prints Markdown; the numbers are quoted in
// docs/speed.md.
//
//	go run ./bench/sandbox                 # about a minute on 2 cores
//	go run ./bench/sandbox -n 500 -pairs 40
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/gobench"
	"github.com/optimizer-dev/optimizer/proc"
	"github.com/optimizer-dev/optimizer/stats"
	"github.com/optimizer-dev/optimizer/testdata"
)

func main() {
	n := flag.Int("n", 200, "processes per side for the start-up cost")
	pairs := flag.Int("pairs", 30, "A/A pairs of the fixture's benchmark, plain and sandboxed")
	target := flag.Duration("target", 300*time.Millisecond, "calibrated duration of one benchmark run")
	flag.Parse()
	if err := run(context.Background(), *n, *pairs, *target); err != nil {
		fmt.Fprintln(os.Stderr, "sandbox:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, n, pairs int, target time.Duration) error {
	if err := proc.SandboxAvailable(); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "optimizer-bench-sandbox-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	repo := filepath.Join(work, "repo", "slot")
	if err := testdata.WriteFixture(repo); err != nil {
		return err
	}
	if _, err := testdata.InitRepo(ctx, repo); err != nil {
		return err
	}
	bin := filepath.Join(work, "sumsq.test")
	if err := gobench.Build(ctx, repo, "./sumsq", bin, nil); err != nil {
		return err
	}
	home, _ := os.UserHomeDir()
	// The shape of a slot's sandbox: the temporary directory, $HOME and the
	// slot's parent hidden, the slot writable, the binary read-only.
	box := &proc.Sandbox{
		Hidden:   []string{os.TempDir(), home, filepath.Dir(repo)},
		Writable: []string{repo},
		ReadOnly: []string{bin},
	}
	fmt.Printf("# bwrap sandbox cost, %s, %d CPUs\n\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"), nCPU())
	if err := startup(ctx, n, repo, box); err != nil {
		return err
	}
	return aa(ctx, pairs, target, bin, filepath.Join(repo, "sumsq"), box)
}

// startup runs true n times plainly and n times sandboxed, interleaved in
// random order, and prints the wall time of each.
func startup(ctx context.Context, n int, dir string, box *proc.Sandbox) error {
	var plain, boxed []float64
	for i := range 2 * n {
		sandboxed := (i%2 == 0) != (rand.IntN(2) == 0)
		if len(plain) == n {
			sandboxed = true
		} else if len(boxed) == n {
			sandboxed = false
		}
		c := proc.Cmd{Dir: dir, Args: []string{"true"}, CPU: -1}
		if sandboxed {
			c.Sandbox = box
		}
		res, err := proc.Run(ctx, c)
		if err != nil {
			return err
		}
		if res.ExitCode != 0 {
			return fmt.Errorf("true exits %d: %s", res.ExitCode, res.Output)
		}
		ms := float64(res.Wall.Microseconds()) / 1000
		if sandboxed {
			boxed = append(boxed, ms)
		} else {
			plain = append(plain, ms)
		}
	}
	fmt.Printf("## Start-up: `true` through proc.Run, %d processes per side, interleaved\n\n", n)
	fmt.Println("| | p10 | median | p90 |")
	fmt.Println("|---|---:|---:|---:|")
	for _, row := range []struct {
		name string
		v    []float64
	}{{"plain", plain}, {"sandboxed", boxed}} {
		fmt.Printf("| %s | %.2f ms | %.2f ms | %.2f ms |\n", row.name, quantile(row.v, 0.1), quantile(row.v, 0.5), quantile(row.v, 0.9))
	}
	fmt.Printf("\nadded per process (difference of medians): %.2f ms\n\n", quantile(boxed, 0.5)-quantile(plain, 0.5))
	return nil
}

// aa calibrates the fixture's benchmark plainly, then runs pairs of one
// plain and one sandboxed sample, the order within each pair random, and
// prints the ratio sandboxed/plain with its interval.
func aa(ctx context.Context, pairs int, target time.Duration, bin, dir string, box *proc.Sandbox) error {
	cpu := -1
	if proc.CanPin(0) {
		cpu = 0
	}
	const name = "BenchmarkSumSquares"
	counts, err := gobench.Calibrate(ctx, bin, dir, "^"+name+"$", target, gobench.Place{CPU: cpu}, nil)
	if err != nil {
		return err
	}
	if len(counts) != 1 {
		return fmt.Errorf("calibrate %s: %d results, want 1", name, len(counts))
	}
	iters := counts[0].N
	sample := func(sandboxed bool) (float64, error) {
		at := gobench.Place{CPU: cpu}
		if sandboxed {
			at.Sandbox = box
		}
		ms, err := gobench.Sample(ctx, bin, dir, name, iters, at, nil)
		if err != nil {
			return 0, err
		}
		for _, m := range ms {
			if m.Unit == "sec/op" {
				return m.Value, nil
			}
		}
		return 0, fmt.Errorf("%s printed no sec/op", name)
	}
	var ps []stats.Pair
	for range pairs {
		var p stats.Pair
		order := []bool{false, true}
		if rand.IntN(2) == 0 {
			order = []bool{true, false}
		}
		for _, sandboxed := range order {
			v, err := sample(sandboxed)
			if err != nil {
				return err
			}
			if sandboxed {
				p.Cand = v
			} else {
				p.Base = v
			}
		}
		ps = append(ps, p)
	}
	est, err := stats.Compare(ps, 0.05)
	if err != nil {
		return err
	}
	fmt.Printf("## A/A: %s, %d iterations a run (about %s), pinned to CPU %d, %d pairs, order random within a pair\n\n",
		name, iters, target, cpu, pairs)
	// Speedup is plain/sandboxed; print sandboxed/plain, the slowdown.
	fmt.Printf("sandboxed / plain time: %.4f, 95%% interval [%.4f, %.4f] (Hodges–Lehmann, Wilcoxon; p = %.3f)\n",
		1/est.Speedup, 1/est.High, 1/est.Low, est.P)
	return nil
}

func quantile(v []float64, q float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1)+0.5)]
}

func nCPU() int {
	n := 0
	for cpu := range 64 {
		if proc.CanPin(cpu) {
			n++
		}
	}
	return n
}
