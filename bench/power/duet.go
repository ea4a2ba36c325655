package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/gobench"
	mach "github.com/optimizer-dev/optimizer/machine"
	"github.com/optimizer-dev/optimizer/stats"
)

// The duet experiment (-duet N) asks whether running base and candidate at
// the same time, one on each CPU, gives tighter intervals than the judge's
// pairs. Those run one side after the other on one CPU (Bulej et al., "Duet
// benchmarking", ICPE 2020). Both sides of a duet pair meet the same load
// at the same moment. A sequential pair's sides meet the load of two
// moments.
//
// It builds three test binaries of the target: base (K repetitions), an
// A/A candidate (K, a comment changed) and an A/B one (K−m, the first
// -steps value). Each round measures one pair of each candidate in each
// mode, in random order, so that the modes meet the machine's load alike:
//
//   - sequential: both sides pinned to one CPU, in random order;
//   - duet: both sides at once, on CPUs 0 and 1, the CPUs swapped at
//     random.
type duetCell struct {
	Mode, Cand string
	pairs      []stats.Pair
	wall       time.Duration // the machine time its pairs took
}

func duet(ctx context.Context, o options, t target, dir string, stdout, stderr io.Writer) error {
	repo := filepath.Join(dir, "repo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	pkg, err := writeBase(ctx, t, repo, o.K)
	if err != nil {
		return err
	}
	pkgDir := filepath.Join(repo, t.Pkg)
	m := o.Steps[0]
	bins := map[string]string{}
	for _, c := range []struct {
		name string
		reps int
	}{{"base", o.K}, {"A/A", o.K}, {fmt.Sprintf("%.3g× faster", float64(o.K)/float64(o.K-m)), o.K - m}} {
		note := "duet " + c.name
		if err := os.WriteFile(filepath.Join(pkgDir, "repeat.go"), t.repeatFile(pkg, c.reps, note), 0o644); err != nil {
			return err
		}
		bin := filepath.Join(dir, "bin", fmt.Sprintf("%d.test", len(bins)))
		if err := gobench.Build(ctx, pkgDir, ".", bin, nil); err != nil {
			return fmt.Errorf("build %s: %w", c.name, err)
		}
		bins[c.name] = bin
	}
	cands := []string{"A/A", fmt.Sprintf("%.3g× faster", float64(o.K)/float64(o.K-m))}
	bench := strings.Trim(t.Bench, "^$")
	counts, err := gobench.Calibrate(ctx, bins["base"], pkgDir, t.Bench, o.Sample, gobench.Place{CPU: o.CPU}, nil)
	if err != nil || len(counts) == 0 {
		return fmt.Errorf("calibrate: %v", err)
	}
	n := counts[0].N
	sample := func(bin string, cpu int) (float64, error) {
		return secPerOp(ctx, bin, pkgDir, bench, n, gobench.Place{CPU: cpu})
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 2))
	sequential := func(cand string) (stats.Pair, error) {
		var p stats.Pair
		var err error
		if rng.IntN(2) == 0 {
			if p.Base, err = sample(bins["base"], o.CPU); err == nil {
				p.Cand, err = sample(bins[cand], o.CPU)
			}
		} else if p.Cand, err = sample(bins[cand], o.CPU); err == nil {
			p.Base, err = sample(bins["base"], o.CPU)
		}
		return p, err
	}
	together := func(cand string) (stats.Pair, error) {
		cb, cc := 0, 1
		if rng.IntN(2) == 0 {
			cb, cc = 1, 0
		}
		var p stats.Pair
		var eb, ec error
		var wg sync.WaitGroup
		wg.Go(func() { p.Base, eb = sample(bins["base"], cb) })
		wg.Go(func() { p.Cand, ec = sample(bins[cand], cc) })
		wg.Wait()
		if eb != nil {
			return p, eb
		}
		return p, ec
	}
	var cells []*duetCell
	for _, mode := range []string{"sequential", "duet"} {
		for _, c := range cands {
			cells = append(cells, &duetCell{Mode: mode, Cand: c})
		}
	}
	started, load0 := time.Now(), mach.Load()
	fmt.Fprintf(stderr, "%s duet: %d cells × %d pairs, n=%d, load %s\n", t.Name, len(cells), o.Duet, n, load0)
	for range o.Duet {
		for _, i := range rng.Perm(len(cells)) {
			c := cells[i]
			pair := sequential
			if c.Mode == "duet" {
				pair = together
			}
			t0 := time.Now()
			p, err := pair(c.Cand)
			if err != nil {
				return fmt.Errorf("%s %s: %w", c.Mode, c.Cand, err)
			}
			c.wall += time.Since(t0)
			c.pairs = append(c.pairs, p)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	fmt.Fprintf(stdout, "\n## %s: duet against sequential pairs (-duet)\n\n", t.Name)
	fmt.Fprintf(stdout, "`%s`, %d iterations a sample (%s calibrated), %d pairs a cell, cells in random order each round; %s to %s UTC, load %s → %s.\n\n",
		t.Bench, n, o.Sample, o.Duet, started.UTC().Format("15:04:05"), time.Now().UTC().Format("15:04:05"), load0, mach.Load())
	fmt.Fprintln(stdout, "| mode | candidate | speedup (HL) | 95% interval | interval width | σ of log ratio | machine time a pair |")
	fmt.Fprintln(stdout, "|---|---|---:|---|---:|---:|---:|")
	for _, c := range cells {
		e, err := stats.Compare(c.pairs, 0.05)
		if err != nil {
			return fmt.Errorf("%s %s: %w", c.Mode, c.Cand, err)
		}
		fmt.Fprintf(stdout, "| %s | %s | %.3f× | [%.3f, %.3f] | %.3f | %.3f | %s |\n", c.Mode, c.Cand, e.Speedup, e.Low, e.High,
			e.High/e.Low, logSD(c.pairs), (c.wall / time.Duration(len(c.pairs))).Round(time.Millisecond))
	}
	return nil
}

// logSD is the standard deviation of the pairs' log ratios.
func logSD(ps []stats.Pair) float64 {
	var xs []float64
	for _, p := range ps {
		xs = append(xs, math.Log(p.Cand/p.Base))
	}
	var mean float64
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return math.Sqrt(ss / float64(len(xs)-1))
}
