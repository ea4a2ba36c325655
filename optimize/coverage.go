package optimize

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/optimizer-dev/optimizer/evaluator/gobench"
)

// BenchCoverage is what one top-level Go benchmark executes: the blocks of
// the module's source that one iteration of it ran, beyond what start-up
// alone runs. It comes from gobench.Cover, which the evaluator's scope
// reads too.
type BenchCoverage struct {
	Name    string // BenchmarkX
	Package string // its directory, a slash path from the module's root
	trace   gobench.Trace
}

// Executes reports whether the benchmark ran any block within lines start
// to end of file, a slash path from the module's root. Its set-up counts:
// a function the benchmark calls only before its loop is executed too.
func (b BenchCoverage) Executes(file string, start, end int) bool {
	return b.trace.Executes(file, start, end)
}

// CoverBenchmarks builds the test binary of pkg (a directory of the module
// rooted at tree) into scratch, with coverage of the whole module. It runs
// each of its top-level benchmarks that match selects (nil: all) for one
// iteration. Base's code runs as it is, outside any sandbox.
func CoverBenchmarks(ctx context.Context, tree, scratch, pkg string, match func(string) bool) ([]BenchCoverage, error) {
	module, err := ModulePath(filepath.Join(tree, "go.mod"))
	if err != nil {
		return nil, err
	}
	bin := filepath.Join(scratch, "cover.test")
	if err := gobench.BuildCover(ctx, tree, "./"+pkg, bin, nil); err != nil {
		return nil, fmt.Errorf("build %s's benchmarks with coverage: %w", pkg, err)
	}
	dir := filepath.Join(tree, filepath.FromSlash(pkg))
	all, err := gobench.List(ctx, bin, dir, gobench.Place{CPU: -1})
	if err != nil {
		return nil, fmt.Errorf("list %s's benchmarks: %w", pkg, err)
	}
	var names []string
	for _, name := range all {
		if match == nil || match(name) {
			names = append(names, name)
		}
	}
	traces, err := gobench.Cover(ctx, bin, dir, module, scratch, names, gobench.Place{CPU: -1}, nil)
	if err != nil {
		return nil, err
	}
	out := make([]BenchCoverage, 0, len(traces))
	for _, t := range traces {
		if t.Failed != "" {
			return nil, fmt.Errorf("run %s with coverage: %s", t.Bench, t.Failed)
		}
		out = append(out, BenchCoverage{Name: t.Bench, Package: pkg, trace: t})
	}
	return out, nil
}

// ModulePath reads the module path from a go.mod.
func ModulePath(gomod string) (string, error) {
	if _, err := os.Stat(gomod); err != nil {
		return "", errors.New("base has no go.mod at the repository's root: only Go modules rooted there are read")
	}
	m, err := gobench.ModulePath(gomod)
	if err != nil {
		return "", errors.New("base's go.mod names no module")
	}
	return m, nil
}
