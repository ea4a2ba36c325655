// Command footprint measures what a job on a large test suite costs the
// machine: a generated Go module with -tests tests (some of them verbose).
//
// By default it measures the optimizer CLI's peak memory, with two
// candidates (one passes, one fails every test of a package) and the
// default test and bench commands. With -speed it measures the wall time
// of a test-bound job at each -j given instead.
//
//	go run ./bench/footprint                            # builds ./cmd/optimizer, 2,200 tests
//	go run ./bench/footprint -bin before=/tmp/opt-old -bin after=/tmp/opt-new -reps 3
//	go run ./bench/footprint -speed 1,2 -cands 4 -reps 3 # is -j 2 faster than -j 1 here?
//
// For each binary it reports two figures, runs interleaved:
//   - self: the optimizer process's own peak RSS (VmHWM in /proc/PID/status,
//     read until it exits), which is what the optimizer holds;
//   - tree: ru_maxrss from wait4, the largest of the optimizer and every
//     descendant it waited for (go build, the test binaries), which is what
//     /usr/bin/time reports.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "footprint:", err)
		os.Exit(1)
	}
}

type binFlag []string

func (b *binFlag) String() string     { return strings.Join(*b, ",") }
func (b *binFlag) Set(s string) error { *b = append(*b, s); return nil }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("footprint", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var bins binFlag
	fs.Var(&bins, "bin", "LABEL=PATH of an optimizer binary (repeatable); default: build ./cmd/optimizer as \"head\"")
	tests := fs.Int("tests", 2200, "tests in the fixture (110 per package)")
	noisy := fs.Int("noisy", 400<<10, "bytes printed by one chatty test per package")
	j := fs.Int("j", 2, "the optimizer's -j")
	reps := fs.Int("reps", 1, "runs of each binary, interleaved")
	speedJ := fs.String("speed", "", "measure wall time at these -j values (\"1,2\") instead of memory")
	cands := fs.Int("cands", 4, "candidates of a -speed job")
	speedTest := fs.String("speed-test", "go test -json -count=1 ./...", "the test command of a -speed job")
	work := fs.String("work", "", "directory for the fixture and stores (default: a temporary one, removed)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	dir := *work
	if dir == "" {
		d, err := os.MkdirTemp("", "footprint-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	if len(bins) == 0 {
		bin := filepath.Join(dir, "optimizer")
		cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/optimizer-dev/optimizer/cmd/optimizer")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("build the CLI: %w\n%s", err, out)
		}
		bins = binFlag{"head=" + bin}
	}
	f := fixture{dir: filepath.Join(dir, "repo"), pkgs: max(*tests/110, 1), perPkg: 110, noisy: *noisy}
	fmt.Fprintf(stderr, "footprint: writing %d tests in %s\n", f.tests(), f.dir)
	if err := f.write(ctx); err != nil {
		return fmt.Errorf("write the fixture: %w", err)
	}
	if *speedJ != "" {
		js, err := parseInts(*speedJ)
		if err != nil {
			return err
		}
		_, bin, _ := strings.Cut(bins[0], "=")
		return speed(ctx, bin, f, dir, *speedTest, js, *cands, *reps, stdout, stderr)
	}
	candsFile := filepath.Join(dir, "candidates.jsonl")
	if err := f.candidates(candsFile); err != nil {
		return err
	}
	type result struct{ self, tree []int64 }
	results := map[string]*result{}
	for rep := range *reps {
		for i, b := range bins {
			label, bin, ok := strings.Cut(b, "=")
			if !ok {
				return fmt.Errorf("-bin %q: want LABEL=PATH", b)
			}
			db := filepath.Join(dir, fmt.Sprintf("store-%d-%d.db", rep, i)) // a new store: no cached baseline
			fmt.Fprintf(stderr, "footprint: %s, run %d\n", label, rep+1)
			self, tree, err := measure(ctx, bin, f.dir, candsFile, db, *j)
			if err != nil {
				return fmt.Errorf("%s: %w", label, err)
			}
			fmt.Fprintf(stderr, "footprint: %s: self %.1f MB, tree %.1f MB\n", label, mb(self), mb(tree))
			r := results[label]
			if r == nil {
				r = &result{}
				results[label] = r
			}
			r.self, r.tree = append(r.self, self), append(r.tree, tree)
		}
	}
	fmt.Fprintf(stdout, "Peak RSS of `optimizer --candidates C -j %d --max-pairs 6` on %d tests (%d KB of chatty output per package), median of %d:\n\n",
		*j, f.tests(), *noisy>>10, *reps)
	fmt.Fprintln(stdout, "| binary | optimizer itself (VmHWM) | with its children (ru_maxrss) |")
	fmt.Fprintln(stdout, "|---|---|---|")
	for _, b := range bins {
		label, _, _ := strings.Cut(b, "=")
		r := results[label]
		fmt.Fprintf(stdout, "| %s | %.1f MB | %.1f MB |\n", label, mb(median(r.self)), mb(median(r.tree)))
	}
	return nil
}

// measure runs one job and returns the optimizer's own peak RSS and
// wait4's ru_maxrss, both in kB.
func measure(ctx context.Context, bin, repo, cands, db string, j int) (self, tree int64, err error) {
	cmd := exec.CommandContext(ctx, bin, "--repo", repo, "--candidates", cands, "--db", db,
		"-j", strconv.Itoa(j), "--min-pairs", "6", "--max-pairs", "6", "--format", "json", "--no-cache")
	cmd.Dir = repo
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = io.Discard, &out
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	done := make(chan struct{})
	peak := make(chan int64, 1)
	go func() { peak <- pollHWM(cmd.Process.Pid, done) }()
	werr := cmd.Wait()
	close(done)
	self = <-peak
	if werr != nil {
		return 0, 0, fmt.Errorf("optimizer: %w\n%s", werr, tail(out.String(), 2000))
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, 0, errors.New("no rusage on this platform")
	}
	return self, ru.Maxrss, nil
}

// pollHWM reads the process's VmHWM every 20 ms until done, and returns the
// last value read. VmHWM only grows, so the last read is the peak up to it.
func pollHWM(pid int, done <-chan struct{}) int64 {
	path := fmt.Sprintf("/proc/%d/status", pid)
	var last int64
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		if kb, ok := readHWM(path); ok {
			last = kb
		}
		select {
		case <-done:
			return last
		case <-t.C:
		}
	}
}

func readHWM(path string) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb, err == nil
		}
	}
	return 0, false
}

func median(v []int64) int64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

func mb(kb int64) float64 { return float64(kb) / 1024 }

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
