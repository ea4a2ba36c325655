package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/optimize"
	"github.com/optimizer-dev/optimizer/proc"
)

const benchmarksDoc = `Which of base's Go benchmarks execute a function, and base's numbers for them.
Found once per base, in a copy of base's tree: each benchmark runs one iteration with
coverage, and a benchmark executes the function when a block of the function's lines
ran; then all benchmarks run once, briefly, for the numbers (one run each: a rough
figure, not a measurement; evaluate measures). These benchmarks are the ones a
candidate changing the function is judged on.`

// Bounds of a benchmark survey.
const (
	surveyBenchtime = "100ms"          // each benchmark's timed run
	surveyTimeout   = 10 * time.Minute // one survey, every package
)

// surveys caches what the targets and benchmarks tools learn of a base.
type surveys struct {
	targets cache[[]optimize.Target]
	bench   cache[*survey]
}

func newSurveys() *surveys { return &surveys{} }

// BenchmarksIn is the benchmarks tool's input.
type BenchmarksIn struct {
	Repo     string `json:"repo,omitempty" jsonschema:"the repository: an absolute path; default: the one the server serves"`
	Base     string `json:"base,omitempty" jsonschema:"the revision; default HEAD"`
	Function string `json:"function" jsonschema:"the function: pkg.Func, pkg.T.Method, Func, or path/file.go:Func"`
}

// Metric is one number of a benchmark's run.
type Metric struct {
	Value float64 `json:"value"`
	Unit  string  `json:"unit" jsonschema:"ns/op, B/op, allocs/op, or the benchmark's own"`
}

// BenchmarkOut is one benchmark that executes the function, with base's
// numbers for it and its sub-benchmarks.
type BenchmarkOut struct {
	Name    string              `json:"name"`
	Package string              `json:"package" jsonschema:"its directory, a slash path from the repository root"`
	Base    map[string][]Metric `json:"base" jsonschema:"base's numbers by benchmark name (sub-benchmarks included), from one short run"`
}

// BenchmarksOut is the benchmarks tool's result.
type BenchmarksOut struct {
	Base       string         `json:"base"`
	Function   string         `json:"function"`
	File       string         `json:"file"`
	Line       int            `json:"line"`
	EndLine    int            `json:"end_line"`
	Benchmarks []BenchmarkOut `json:"benchmarks" jsonschema:"the benchmarks that execute the function"`
	Others     []string       `json:"others,omitempty" jsonschema:"base's other benchmarks, which do not execute it"`
}

func (t *tools) benchmarks(ctx context.Context, _ *sdk.CallToolRequest, in BenchmarksIn) (*sdk.CallToolResult, BenchmarksOut, error) {
	if err := t.mayRunBase(); err != nil {
		return nil, BenchmarksOut{}, err
	}
	if in.Function == "" {
		return nil, BenchmarksOut{}, errors.New("function is required: name it as pkg.Func, pkg.T.Method or path/file.go:Func")
	}
	dir, err := t.repo(in.Repo)
	if err != nil {
		return nil, BenchmarksOut{}, err
	}
	r, base, err := baseOf(ctx, dir, in.Base)
	if err != nil {
		return nil, BenchmarksOut{}, err
	}
	ts, err := optimize.ResolveTargets(ctx, r.Root, base, []string{in.Function})
	if err != nil {
		return nil, BenchmarksOut{}, err
	}
	fn := ts[0]
	sv, err := t.surveys.bench.get(ctx, r.Root+"\x00"+base, func() (*survey, error) {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), surveyTimeout)
		defer cancel()
		return surveyBase(sctx, r, base)
	})
	if err != nil {
		return nil, BenchmarksOut{}, err
	}
	out := BenchmarksOut{Base: base, Function: fn.Name, File: fn.File, Line: fn.Line, EndLine: fn.EndLine, Benchmarks: []BenchmarkOut{}}
	for _, b := range sv.benchmarks {
		if !b.Executes(fn.File, fn.Line, fn.EndLine) {
			out.Others = append(out.Others, b.Name)
			continue
		}
		bo := BenchmarkOut{Name: b.Name, Package: b.Package, Base: map[string][]Metric{}}
		for name, ms := range sv.numbers[b.Package] {
			if name == b.Name || strings.HasPrefix(name, b.Name+"/") {
				bo.Base[name] = ms
			}
		}
		out.Benchmarks = append(out.Benchmarks, bo)
	}
	return nil, out, nil
}

// survey is what one base's benchmarks execute, and their numbers.
type survey struct {
	benchmarks []optimize.BenchCoverage
	numbers    map[string]map[string][]Metric // by package, then benchmark
}

// surveyBase exports base and surveys the benchmarks of every package at
// base that declares some.
func surveyBase(ctx context.Context, r gitcmd.Repo, base string) (*survey, error) {
	pkgs, err := benchmarkPackages(ctx, r, base)
	if err != nil {
		return nil, err
	}
	if len(pkgs) == 0 {
		return nil, errors.New("base has no Go benchmark (no func Benchmark in a _test.go file)")
	}
	tree, err := exportBase(ctx, r, base)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tree)
	sv := &survey{numbers: map[string]map[string][]Metric{}}
	for _, pkg := range pkgs {
		bs, nums, err := surveyPackage(ctx, tree, pkg)
		if err != nil {
			return nil, err
		}
		sv.benchmarks = append(sv.benchmarks, bs...)
		sv.numbers[pkg] = nums
	}
	return sv, nil
}

// benchmarkPackages are the directories at base whose test files declare
// a benchmark, sorted.
func benchmarkPackages(ctx context.Context, r gitcmd.Repo, base string) ([]string, error) {
	out, err := gitcmd.Run(ctx, gitcmd.Cmd{Dir: r.Root, ReadOnly: true,
		Args: []string{"grep", "-l", "-z", "-e", "^func Benchmark", base, "--", "*_test.go"}})
	var ge *gitcmd.Error
	if errors.As(err, &ge) && ge.ExitCode() == 1 {
		return nil, nil // no match
	}
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var dirs []string
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		_, name, _ = strings.Cut(name, ":") // base:path
		if d := path.Dir(name); !seen[d] {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	sort.Strings(dirs)
	return dirs, nil
}

// surveyPackage runs each of pkg's benchmarks one iteration with coverage
// of the whole module (optimize.CoverBenchmarks). Then it builds its test
// binary without coverage and runs all of them once for their numbers.
func surveyPackage(ctx context.Context, tree, pkg string) ([]optimize.BenchCoverage, map[string][]Metric, error) {
	bin := filepath.Join(tree, ".optimizer-survey")
	if err := os.MkdirAll(bin, 0o700); err != nil {
		return nil, nil, err
	}
	covs, err := optimize.CoverBenchmarks(ctx, tree, bin, pkg, nil)
	if err != nil {
		return nil, nil, err
	}
	plain := filepath.Join(bin, "plain.test")
	if _, err := run(ctx, tree, "go", "test", "-c", "-o", plain, "./"+pkg); err != nil {
		return nil, nil, fmt.Errorf("build %s's benchmarks: %w", pkg, err)
	}
	pkgDir := filepath.Join(tree, filepath.FromSlash(pkg))
	timed, err := run(ctx, pkgDir, plain, "-test.run", "^$", "-test.bench", ".", "-test.benchtime", surveyBenchtime, "-test.benchmem")
	if err != nil {
		return nil, nil, fmt.Errorf("run %s's benchmarks: %w", pkg, err)
	}
	return covs, parseBenchLines(timed), nil
}

// run runs a command in dir and returns its output; a failure carries the
// output's tail.
func run(ctx context.Context, dir, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	proc.Tag(cmd)
	b, err := cmd.CombinedOutput()
	if err != nil {
		return b, fmt.Errorf("%w\n%s", err, proc.Tail(b, 20))
	}
	return b, nil
}

// benchResult is a line of go test's benchmark output.
var benchResult = regexp.MustCompile(`^(Benchmark\S*)\s+\d+\s+(.*)$`)

// parseBenchLines reads benchmark result lines into metrics by name, the
// -GOMAXPROCS suffix removed.
func parseBenchLines(b []byte) map[string][]Metric {
	out := map[string][]Metric{}
	for _, line := range strings.Split(string(b), "\n") {
		m := benchResult.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		name := regexp.MustCompile(`-\d+$`).ReplaceAllString(m[1], "")
		f := strings.Fields(m[2])
		var ms []Metric
		for i := 0; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				break
			}
			ms = append(ms, Metric{Value: v, Unit: f[i+1]})
		}
		out[name] = ms
	}
	return out
}
