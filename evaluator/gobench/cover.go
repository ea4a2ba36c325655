package gobench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/proc"
)

// Block is a block of source that a coverage profile counts: lines Start
// to End of File, a slash path from the module's root.
type Block struct {
	File  string `json:"file"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

// Trace is what one top-level benchmark executes, from one run of one
// iteration with coverage.
type Trace struct {
	Bench string `json:"bench"`
	// Subs are the benchmarks it printed a result for (itself, or its
	// sub-benchmarks), with the time of that one iteration.
	Subs []Count `json:"subs"`
	// Blocks are the blocks it ran more often than the process's start-up
	// alone does (package initialisation, TestMain): what the benchmark
	// itself executes.
	Blocks []Block `json:"blocks"`
	// Wall is how long its run took, start-up and set-up included.
	Wall time.Duration `json:"wall"`
	// Failed says why nothing is known of what it executes: the run
	// failed, or printed no result. Empty otherwise.
	Failed string `json:"failed,omitempty"`
}

// Executes reports whether t ran a block of file that overlaps lines start
// to end.
func (t Trace) Executes(file string, start, end int) bool {
	return slices.ContainsFunc(t.Blocks, func(b Block) bool { return b.File == file && b.Start <= end && b.End >= start })
}

// BuildCover compiles importPath's test binary to bin, with counting
// coverage of every package of the module at dir. It runs "go test -c
// -trimpath -cover -covermode=count -coverpkg=./... -o bin [flags...]
// importPath" in dir, unpinned. The error carries the end of the compiler's
// output.
func BuildCover(ctx context.Context, dir, importPath, bin string, flags []string) error {
	bin, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	args := slices.Concat([]string{"go", "test", "-c", "-trimpath", "-cover", "-covermode=count", "-coverpkg=./...", "-o", bin},
		flags, []string{importPath})
	_, err = run(ctx, "go test -c -cover", proc.Cmd{Dir: dir, Args: args, CPU: -1})
	return err
}

// Cover runs bin, built by BuildCover, in dir, placed as at says; at's
// sandbox must let it write to out. It runs once with no benchmark, and
// then once for each of names (top-level benchmarks) for one iteration. It
// passes extra (the user's --bench-arg arguments), and returns what each
// run executed, in names' order. The module's path is module, which the
// profile's file names start with; blocks of other modules are left out.
// The profiles go in the directory out. A benchmark whose run fails has a
// Trace that says so (Failed). The error is for a run with no benchmark
// that fails, or ctx.
func Cover(ctx context.Context, bin, dir, module, out string, names []string, at Place, extra []string) ([]Trace, error) {
	at.CPU = -1
	// Each run has a counter directory of its own. The testing package
	// writes its profile from every counter file the directory holds, so a
	// shared one would add up the runs before it.
	gocover := func(name string) (string, error) {
		d := filepath.Join(out, "gocover-"+name)
		if err := os.RemoveAll(d); err != nil {
			return "", err
		}
		return d, os.MkdirAll(d, 0o755)
	}
	counters, err := gocover("start")
	if err != nil {
		return nil, err
	}
	prof := filepath.Join(out, "start.cov")
	abs, err := filepath.Abs(bin)
	if err != nil {
		return nil, err
	}
	c := proc.Cmd{Dir: dir, Args: slices.Concat([]string{abs, "-test.run=^$", "-test.coverprofile=" + prof, "-test.gocoverdir=" + counters}, extra),
		CPU: -1, MemLimit: at.MemLimit, Sandbox: at.Sandbox}
	if _, err := run(ctx, filepath.Base(bin), c); err != nil {
		return nil, fmt.Errorf("run %s with coverage and no benchmark: %w", filepath.Base(bin), err)
	}
	start, err := readProfile(prof, module)
	if err != nil {
		return nil, err
	}
	traces := make([]Trace, 0, len(names))
	for i, name := range names {
		t := Trace{Bench: name}
		prof := filepath.Join(out, strconv.Itoa(i)+".cov")
		counters, err := gocover(strconv.Itoa(i))
		if err != nil {
			return nil, err
		}
		args := append(benchArgs("^"+regexp.QuoteMeta(name)+"$", "1x"), "-test.coverprofile="+prof, "-test.gocoverdir="+counters)
		t0 := time.Now()
		ms, _, err := runBench(ctx, bin, dir, at, args, extra)
		t.Wall = time.Since(t0)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			t.Failed = firstLine(err.Error())
			traces = append(traces, t)
			continue
		}
		for _, m := range ms {
			if len(t.Subs) == 0 || t.Subs[len(t.Subs)-1].Bench != m.Bench {
				t.Subs = append(t.Subs, Count{Bench: m.Bench, N: m.Iterations})
			}
			if m.Unit == "sec/op" {
				t.Subs[len(t.Subs)-1].SecPerOp = m.Value
			}
		}
		counts, err := readProfile(prof, module)
		if err != nil {
			t.Failed = err.Error()
			traces = append(traces, t)
			continue
		}
		for b, n := range counts {
			if n > start[b] {
				t.Blocks = append(t.Blocks, b)
			}
		}
		slices.SortFunc(t.Blocks, func(a, b Block) int {
			if c := strings.Compare(a.File, b.File); c != 0 {
				return c
			}
			return a.Start - b.Start
		})
		traces = append(traces, t)
	}
	return traces, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimSuffix(s, ":")
}

// readProfile reads a coverage profile's counts by block, the files made
// relative to the module's root; blocks of other modules are left out.
func readProfile(file, module string) (map[Block]int64, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read coverage: %w", err)
	}
	return ParseProfile(b, module), nil
}

// ParseProfile reads a Go coverage profile's counts by block, the files
// made relative to the module's root (module is its path). Blocks of other
// modules, and lines that are not blocks, are left out. A block listed
// twice has the sum of its counts.
func ParseProfile(b []byte, module string) map[Block]int64 {
	out := map[Block]int64{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		// example.com/m/pkg/file.go:3.30,6.2 1 1
		line := sc.Text()
		loc, rest, ok := strings.Cut(line, " ")
		if !ok || strings.HasPrefix(line, "mode:") {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) != 2 {
			continue
		}
		n, err := strconv.ParseInt(fields[1], 10, 64)
		if err != nil {
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
		start, err1 := strconv.Atoi(strings.Split(from, ".")[0])
		end, err2 := strconv.Atoi(strings.Split(to, ".")[0])
		if err1 != nil || err2 != nil {
			continue
		}
		out[Block{File: rel, Start: start, End: end}] += n
	}
	return out
}

// ModulePath reads the module path from the go.mod file at gomod.
func ModulePath(gomod string) (string, error) {
	b, err := os.ReadFile(gomod)
	if err != nil {
		return "", fmt.Errorf("read go.mod: %w", err)
	}
	m := moduleLine.FindSubmatch(b)
	if m == nil {
		return "", fmt.Errorf("%s names no module", gomod)
	}
	return string(m[1]), nil
}

var moduleLine = regexp.MustCompile(`(?m)^module\s+"?([^"\s]+)"?`)
