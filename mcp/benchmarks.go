package mcp

import (
	"bufio"
	"bytes"
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
		if !b.executes(fn.File, fn.Line, fn.EndLine) {
			out.Others = append(out.Others, b.name)
			continue
		}
		bo := BenchmarkOut{Name: b.name, Package: b.pkg, Base: map[string][]Metric{}}
		for name, ms := range sv.numbers[b.pkg] {
			if name == b.name || strings.HasPrefix(name, b.name+"/") {
				bo.Base[name] = ms
			}
		}
		out.Benchmarks = append(out.Benchmarks, bo)
	}
	return nil, out, nil
}

// survey is what one base's benchmarks execute, and their numbers.
type survey struct {
	benchmarks []surveyed
	numbers    map[string]map[string][]Metric // by package, then benchmark
}

// surveyed is one top-level benchmark and the blocks its run covered.
type surveyed struct {
	name, pkg string
	covered   []block
}

// block is a covered block of source, by repository-relative file.
type block struct {
	file       string
	start, end int
}

func (b surveyed) executes(file string, start, end int) bool {
	for _, c := range b.covered {
		if c.file == file && c.start <= end && c.end >= start {
			return true
		}
	}
	return false
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
	module, err := modulePath(filepath.Join(tree, "go.mod"))
	if err != nil {
		return nil, err
	}
	sv := &survey{numbers: map[string]map[string][]Metric{}}
	for _, pkg := range pkgs {
		bs, nums, err := surveyPackage(ctx, tree, module, pkg)
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

var moduleLine = regexp.MustCompile(`(?m)^module\s+"?([^"\s]+)"?`)

// modulePath reads the module path from a go.mod.
func modulePath(gomod string) (string, error) {
	b, err := os.ReadFile(gomod)
	if err != nil {
		return "", errors.New("base has no go.mod at the repository's root: the benchmarks tool reads Go modules rooted there")
	}
	m := moduleLine.FindSubmatch(b)
	if m == nil {
		return "", errors.New("base's go.mod names no module")
	}
	return string(m[1]), nil
}

// surveyPackage builds pkg's test binary twice, with coverage of the whole
// module and without, runs each benchmark one iteration with coverage, and
// all of them once for their numbers.
func surveyPackage(ctx context.Context, tree, module, pkg string) ([]surveyed, map[string][]Metric, error) {
	bin := filepath.Join(tree, ".optimizer-survey")
	if err := os.MkdirAll(bin, 0o700); err != nil {
		return nil, nil, err
	}
	cover := filepath.Join(bin, "cover.test")
	plain := filepath.Join(bin, "plain.test")
	if _, err := run(ctx, tree, "go", "test", "-c", "-cover", "-coverpkg=./...", "-o", cover, "./"+pkg); err != nil {
		return nil, nil, fmt.Errorf("build %s's benchmarks with coverage: %w", pkg, err)
	}
	if _, err := run(ctx, tree, "go", "test", "-c", "-o", plain, "./"+pkg); err != nil {
		return nil, nil, fmt.Errorf("build %s's benchmarks: %w", pkg, err)
	}
	pkgDir := filepath.Join(tree, filepath.FromSlash(pkg))
	list, err := run(ctx, pkgDir, plain, "-test.list", "^Benchmark")
	if err != nil {
		return nil, nil, fmt.Errorf("list %s's benchmarks: %w", pkg, err)
	}
	var out []surveyed
	for i, name := range strings.Fields(string(list)) {
		if !strings.HasPrefix(name, "Benchmark") {
			continue
		}
		prof := filepath.Join(bin, fmt.Sprintf("%d.cov", i))
		if _, err := run(ctx, pkgDir, cover, "-test.run", "^$", "-test.bench", "^"+regexp.QuoteMeta(name)+"$",
			"-test.benchtime", "1x", "-test.coverprofile", prof); err != nil {
			return nil, nil, fmt.Errorf("run %s with coverage: %w", name, err)
		}
		blocks, err := readCoverage(prof, module)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, surveyed{name: name, pkg: pkg, covered: blocks})
	}
	timed, err := run(ctx, pkgDir, plain, "-test.run", "^$", "-test.bench", ".", "-test.benchtime", surveyBenchtime, "-test.benchmem")
	if err != nil {
		return nil, nil, fmt.Errorf("run %s's benchmarks: %w", pkg, err)
	}
	return out, parseBenchLines(timed), nil
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

// readCoverage reads a coverage profile's blocks that ran, with their
// files made relative to the module's root.
func readCoverage(file, module string) ([]block, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read coverage: %w", err)
	}
	var out []block
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		// example.com/m/pkg/file.go:3.30,6.2 1 1
		line := sc.Text()
		loc, rest, ok := strings.Cut(line, " ")
		if !ok || strings.HasPrefix(line, "mode:") {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) != 2 || fields[1] == "0" {
			continue
		}
		i := strings.LastIndex(loc, ":")
		if i < 0 {
			continue
		}
		file, span := loc[:i], loc[i+1:]
		rel, ok := strings.CutPrefix(file, module+"/")
		if !ok {
			continue
		}
		from, to, _ := strings.Cut(span, ",")
		start, _ := strconv.Atoi(strings.Split(from, ".")[0])
		end, _ := strconv.Atoi(strings.Split(to, ".")[0])
		out = append(out, block{file: rel, start: start, end: end})
	}
	return out, sc.Err()
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
