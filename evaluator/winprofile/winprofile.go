// Package winprofile chooses what of the winner to profile and where its
// sources are read from. The winner's profile runs the Go benchmarks it was
// found faster on, in the package that improved most, with the test
// binaries phase 2 built. The evaluator takes the slots and runs the
// profiles (package profiler); this package is the logic around them.
package winprofile

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/optimizer-dev/optimizer/evaluator/measure"
	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/profiler"
	"github.com/optimizer-dev/optimizer/result"
)

// Target is what to profile: one package's binaries, the improved
// benchmarks in it, and whether allocations changed.
type Target struct {
	Bench   *measure.GoBench
	Pattern string
	Allocs  bool
}

// Faster are the names of the benchmarks rows labels faster by the one
// rule (BenchResult.Label), aside ones left out.
func Faster(rows []result.BenchResult, minSpeedup float64) []string {
	var names []string
	for _, b := range rows {
		if !b.Aside() && b.Label(minSpeedup) == result.VerdictFaster {
			names = append(names, b.Name)
		}
	}
	return names
}

// Improved picks, of the Go benchmarks measured, the package whose
// benchmark in rows improved most. It returns the benchmarks of that
// package labelled faster: the benchmarks that changed. It returns nil when
// none did.
func Improved(measured []*measure.GoBench, rows []result.BenchResult, minSpeedup float64) *Target {
	var best *result.BenchResult
	for i, b := range rows {
		if !b.Aside() && b.Label(minSpeedup) == result.VerdictFaster && (best == nil || b.Speedup > best.Speedup) {
			best = &rows[i]
		}
	}
	if best == nil {
		return nil
	}
	var t Target
	for _, gb := range measured {
		if topLevel(best.Name) == topLevel(gb.Name) {
			t.Bench = gb
		}
	}
	if t.Bench == nil {
		return nil
	}
	samePackage := func(name string) bool {
		for _, gb := range measured {
			if topLevel(gb.Name) == topLevel(name) {
				return gb.Pkg.ImportPath == t.Bench.Pkg.ImportPath
			}
		}
		return false
	}
	var names []string
	for _, b := range rows {
		if !samePackage(b.Name) {
			continue
		}
		if allocsChanged(b) {
			t.Allocs = true
		}
		if !b.Aside() && b.Label(minSpeedup) == result.VerdictFaster {
			names = append(names, b.Name)
		}
	}
	t.Pattern = Pattern(names)
	return &t
}

// Captures are the options of base's and the candidate's profiles of t,
// written to dir; cand names the candidate's files. Each runs in the
// package's directory of its own tree, baseDir and candDir.
func (t *Target) Captures(dir, cand, baseDir, candDir string, cpu int, args []string) (base, c profiler.CaptureOptions) {
	base = profiler.CaptureOptions{
		Binary: t.Bench.BaseBin, Dir: filepath.Join(baseDir, t.Bench.Pkg.Dir),
		Bench: t.Pattern, CPU: cpu,
		Out: filepath.Join(dir, "base.cpu.pprof"), Extra: args,
	}
	c = base
	c.Binary, c.Dir, c.Out = t.Bench.CandBin, filepath.Join(candDir, t.Bench.Pkg.Dir), filepath.Join(dir, cand+".cpu.pprof")
	if t.Allocs {
		base.MemOut = filepath.Join(dir, "base.mem.pprof")
		c.MemOut = filepath.Join(dir, cand+".mem.pprof")
	}
	return base, c
}

// Pattern is the -test.bench pattern that runs the benchmarks names (full
// names, BenchmarkX/n=10) and, in the common cases, nothing else. The go
// command matches a pattern level by level, split at its slashes. So each
// level is an alternation of the names' parts at that level. A benchmark
// measured without sub-benchmarks runs whole, whatever the deeper levels
// say. Names that differ at two levels (A/x and B/y) select their cross
// product too (A/y and B/x, when those exist).
func Pattern(names []string) string {
	var levels [][]string
	for _, name := range names {
		for i, part := range strings.Split(name, "/") {
			if i == len(levels) {
				levels = append(levels, nil)
			}
			if q := regexp.QuoteMeta(part); !slices.Contains(levels[i], q) {
				levels[i] = append(levels[i], q)
			}
		}
	}
	parts := make([]string, len(levels))
	for i, alts := range levels {
		parts[i] = "^(" + strings.Join(alts, "|") + ")$"
	}
	return strings.Join(parts, "/")
}

// topLevel is a benchmark's top-level name: BenchmarkX of BenchmarkX/n=10.
func topLevel(name string) string {
	top, _, _ := strings.Cut(name, "/")
	return top
}

// allocsChanged reports whether b is an allocation metric that changed:
// significantly beside time, judged faster or slower (--metric allocs), or,
// in an old report, different at all.
func allocsChanged(b result.BenchResult) bool {
	switch {
	case b.Unit != "B/op" && b.Unit != "allocs/op":
		return false
	case b.Exact:
		return b.Speedup != 1
	case b.Beside:
		return b.Increased || b.Decreased
	}
	return b.Verdict == result.VerdictFaster || b.Verdict == result.VerdictSlower
}

// NotProfiled says why the winner has no profile when no --profile command
// was given: only Go benchmarks can be profiled without one.
func NotProfiled(benchCmd bool) string {
	if benchCmd {
		return "the winner was measured by the --bench command, and only Go benchmarks are profiled without --profile CMD"
	}
	return "no Go benchmark of the winner was judged faster; --profile CMD profiles with a command of your own"
}

// DirSource reads module-relative files from the tree at dir.
func DirSource(dir string) func(string) ([]byte, error) {
	return func(file string) ([]byte, error) {
		root, err := os.OpenRoot(dir)
		if err != nil {
			return nil, err
		}
		defer root.Close()
		return root.ReadFile(filepath.FromSlash(path.Clean(file)))
	}
}

// BaseSource reads module-relative files at base from repo's objects.
func BaseSource(ctx context.Context, repo, base string) func(string) ([]byte, error) {
	return func(file string) ([]byte, error) {
		b, err := gitcmd.Run(ctx, gitcmd.Cmd{Args: []string{"-C", repo, "show", base + ":" + file}, ReadOnly: true})
		if err != nil {
			return nil, fmt.Errorf("%s at base: %w", file, os.ErrNotExist)
		}
		return b, nil
	}
}
