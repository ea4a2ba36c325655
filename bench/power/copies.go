package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/gobench"
	mach "github.com/optimizer-dev/optimizer/machine"
	"github.com/optimizer-dev/optimizer/stats"
)

// The copies experiment (-copies N) asks why byte-identical test binaries
// run at different speeds. Is it because they are different files, or run
// from different paths? It is the ~6% offset between base and an A/A
// candidate of docs/measuring.md, "Identical binaries, different files". It
// builds the target's base test binary once (orig). It measures it against
// each variant, in random-order pairs pinned to one CPU:
//
//   - copy-i: a byte-identical copy, a file of its own, at a path of the
//     same length as orig's;
//   - link: a hard link to orig at another path of the same length (the
//     same file, the same page-cache pages);
//   - longpath: a copy at a longer path, as the evaluator lays out a
//     candidate's binary (cand/NAME/) beside base's (base/);
//   - fresh: both sides copied from orig to a new file at one path before
//     every sample, so that they share the path and neither keeps a file.
//
// The variants are measured round-robin, one pair each per round, so the
// machine's load meets them alike. Every process runs in the package's
// directory of base's tree: only the file and its path differ.
type variant struct {
	Name  string
	Bin   string // the file run; fresh copies to it before each sample
	Fresh bool
	pairs []stats.Pair
}

func copies(ctx context.Context, o options, t target, dir string, stdout, stderr io.Writer) error {
	repo := filepath.Join(dir, "repo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if _, err := writeBase(ctx, t, repo, o.K); err != nil {
		return err
	}
	pkgDir := filepath.Join(repo, t.Pkg)
	cdir := filepath.Join(dir, "copies")
	name := "x.test"
	orig := filepath.Join(cdir, "c00", name)
	if err := os.MkdirAll(filepath.Dir(orig), 0o755); err != nil {
		return err
	}
	if err := gobench.Build(ctx, pkgDir, ".", orig, nil); err != nil {
		return err
	}
	var vs []*variant
	for i := 1; i <= o.Copies; i++ {
		p := filepath.Join(cdir, fmt.Sprintf("c%02d", i), name)
		if err := copyFile(orig, p); err != nil {
			return err
		}
		vs = append(vs, &variant{Name: fmt.Sprintf("copy-%d", i), Bin: p})
	}
	link := filepath.Join(cdir, "h01", name)
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		return err
	}
	if err := os.Link(orig, link); err != nil && !os.IsExist(err) {
		return err
	}
	long := filepath.Join(cdir, "cand", "t03-aa", name)
	if err := copyFile(orig, long); err != nil {
		return err
	}
	vs = append(vs, &variant{Name: "link", Bin: link}, &variant{Name: "longpath", Bin: long},
		&variant{Name: "fresh", Bin: filepath.Join(cdir, "run", name), Fresh: true})

	at := gobench.Place{CPU: -1}
	if runtime.NumCPU() > 1 {
		at.CPU = o.CPU
	}
	bench := strings.Trim(t.Bench, "^$")
	counts, err := gobench.Calibrate(ctx, orig, pkgDir, t.Bench, o.Sample, at, nil)
	if err != nil || len(counts) == 0 {
		return fmt.Errorf("calibrate: %v", err)
	}
	n := counts[0].N
	sample := func(bin string, fresh bool) (float64, error) {
		if fresh {
			if err := copyFile(orig, bin); err != nil {
				return 0, err
			}
		}
		return secPerOp(ctx, bin, pkgDir, bench, n, at)
	}
	started, load0 := time.Now(), mach.Load()
	fmt.Fprintf(stderr, "%s copies: %d variants × %d pairs, n=%d, CPU %d, load %s\n", t.Name, len(vs), o.Pairs, n, at.CPU, load0)
	rng := rand.New(rand.NewPCG(uint64(started.UnixNano()), 1))
	for r := 0; r < o.Pairs; r++ {
		for _, i := range rng.Perm(len(vs)) {
			v := vs[i]
			baseBin := orig
			if v.Fresh {
				baseBin = v.Bin // both sides: a fresh copy of orig at one path
			}
			var base, cand float64
			var err error
			if rng.IntN(2) == 0 {
				if base, err = sample(baseBin, v.Fresh); err == nil {
					cand, err = sample(v.Bin, v.Fresh)
				}
			} else {
				if cand, err = sample(v.Bin, v.Fresh); err == nil {
					base, err = sample(baseBin, v.Fresh)
				}
			}
			if err != nil {
				return err
			}
			v.pairs = append(v.pairs, stats.Pair{Base: base, Cand: cand})
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	fmt.Fprintf(stdout, "\n## %s: byte-identical binaries as different files (-copies)\n\n", t.Name)
	fmt.Fprintf(stdout, "`%s`, %d iterations a sample (%s calibrated), CPU %d, %d pairs a variant in random order, variants round-robin; %s to %s UTC, load %s → %s.\n\n",
		t.Bench, n, o.Sample, at.CPU, o.Pairs, started.UTC().Format("15:04:05"), time.Now().UTC().Format("15:04:05"), load0, mach.Load())
	fmt.Fprintln(stdout, "| variant | orig's time / variant's (HL) | 95% interval | excludes 1× | median orig, µs/op | median variant, µs/op |")
	fmt.Fprintln(stdout, "|---|---:|---|---|---:|---:|")
	for _, v := range vs {
		e, err := stats.Compare(v.pairs, 0.05)
		if err != nil {
			return fmt.Errorf("%s: %w", v.Name, err)
		}
		var b, c []float64
		for _, p := range v.pairs {
			b, c = append(b, p.Base), append(c, p.Cand)
		}
		excl := "no"
		if e.Low > 1 || e.High < 1 {
			excl = "**yes**"
		}
		fmt.Fprintf(stdout, "| %s | %.3f× | [%.3f, %.3f] | %s | %.2f | %.2f |\n", v.Name, e.Speedup, e.Low, e.High, excl,
			stats.Median(b)*1e6, stats.Median(c)*1e6)
	}
	return nil
}

// secPerOp runs one sample of bench, n iterations, and returns its time
// per op in seconds.
func secPerOp(ctx context.Context, bin, dir, bench string, n int64, at gobench.Place) (float64, error) {
	ms, err := gobench.Sample(ctx, bin, dir, bench, n, at, nil)
	if err != nil {
		return 0, err
	}
	for _, m := range ms {
		if m.Unit == "sec/op" {
			return m.Value, nil
		}
	}
	return 0, fmt.Errorf("%s printed no sec/op", bin)
}

// copyFile writes a new file at dst with src's bytes, executable, and
// renames it into place. So dst is a new file (a new inode), and a process
// running the old one is undisturbed.
func copyFile(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	tmp := dst + ".tmp"
	if err := os.WriteFile(tmp, b, 0o755); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}
