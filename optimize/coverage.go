package optimize

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/optimizer-dev/optimizer/proc"
)

// BenchCoverage is what one top-level Go benchmark executes: the blocks of
// the module's source that one iteration of it ran.
type BenchCoverage struct {
	Name    string // BenchmarkX
	Package string // its directory, a slash path from the module's root
	blocks  []coverBlock
}

// coverBlock is a block of source that ran, by module-relative file.
type coverBlock struct {
	file       string
	start, end int
}

// Executes reports whether the benchmark ran any block within lines start
// to end of file, a slash path from the module's root. Its set-up counts:
// a function the benchmark calls only before its loop is executed too.
func (b BenchCoverage) Executes(file string, start, end int) bool {
	for _, c := range b.blocks {
		if c.file == file && c.start <= end && c.end >= start {
			return true
		}
	}
	return false
}

// CoverBenchmarks builds the test binary of pkg (a directory of the module
// rooted at tree) with coverage of the whole module, into scratch, and
// runs each of its top-level benchmarks that match selects (nil: all) for
// one iteration. Base's code runs as it is, outside any sandbox.
func CoverBenchmarks(ctx context.Context, tree, scratch, pkg string, match func(string) bool) ([]BenchCoverage, error) {
	module, err := ModulePath(filepath.Join(tree, "go.mod"))
	if err != nil {
		return nil, err
	}
	bin := filepath.Join(scratch, "cover.test")
	if _, err := runIn(ctx, tree, "go", "test", "-c", "-cover", "-coverpkg=./...", "-o", bin, "./"+pkg); err != nil {
		return nil, fmt.Errorf("build %s's benchmarks with coverage: %w", pkg, err)
	}
	dir := filepath.Join(tree, filepath.FromSlash(pkg))
	list, err := runIn(ctx, dir, bin, "-test.list", "^Benchmark")
	if err != nil {
		return nil, fmt.Errorf("list %s's benchmarks: %w", pkg, err)
	}
	var out []BenchCoverage
	for i, name := range strings.Fields(string(list)) {
		if !strings.HasPrefix(name, "Benchmark") || (match != nil && !match(name)) {
			continue
		}
		prof := filepath.Join(scratch, fmt.Sprintf("%d.cov", i))
		if _, err := runIn(ctx, dir, bin, "-test.run", "^$", "-test.bench", "^"+regexp.QuoteMeta(name)+"$",
			"-test.benchtime", "1x", "-test.coverprofile", prof); err != nil {
			return nil, fmt.Errorf("run %s with coverage: %w", name, err)
		}
		blocks, err := readCoverage(prof, module)
		if err != nil {
			return nil, err
		}
		out = append(out, BenchCoverage{Name: name, Package: pkg, blocks: blocks})
	}
	return out, nil
}

var moduleLine = regexp.MustCompile(`(?m)^module\s+"?([^"\s]+)"?`)

// ModulePath reads the module path from a go.mod.
func ModulePath(gomod string) (string, error) {
	b, err := os.ReadFile(gomod)
	if err != nil {
		return "", errors.New("base has no go.mod at the repository's root: only Go modules rooted there are read")
	}
	m := moduleLine.FindSubmatch(b)
	if m == nil {
		return "", errors.New("base's go.mod names no module")
	}
	return string(m[1]), nil
}

// runIn runs a command in dir and returns its output; a failure carries
// the output's tail.
func runIn(ctx context.Context, dir, name string, args ...string) ([]byte, error) {
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
func readCoverage(file, module string) ([]coverBlock, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read coverage: %w", err)
	}
	var out []coverBlock
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
		out = append(out, coverBlock{file: rel, start: start, end: end})
	}
	return out, sc.Err()
}
