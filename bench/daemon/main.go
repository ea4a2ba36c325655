// Command daemon measures the optimizer daemon (issue 15) through its real
// binary and its real API, and prints Markdown:
//
//   - load: -jobs small jobs (one candidate, --test true, --bench none)
//     submitted by -clients concurrent clients. It gives accepted and
//     finished counts, jobs run twice, p50/p99 accept latency, jobs per
//     second, and the daemon's peak RSS (VmHWM);
//
//   - first test: on a repository of -files files, the time from submitting
//     to the daemon (its pool warm) to the first test process starting. It
//     is set against the CLI's time from its start to its first test with
//     --keep-slots (its slots warm too). It gives medians of -reps, and
//     their ratio;
//
//   - repeat: the same job submitted twice; the repeat's time (submit to
//     end) against the first's, with what the result cache reused.
//
//     go run ./bench/daemon                         # the run quoted in docs/speed.md
//     go run ./bench/daemon -jobs 100 -files 2000   # a quick look
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
)

var (
	jobs    = flag.Int("jobs", 1000, "load: jobs submitted")
	clients = flag.Int("clients", 20, "load: concurrent clients")
	files   = flag.Int("files", 20000, "first test: files in the repository")
	reps    = flag.Int("reps", 5, "first test and repeat: repetitions")
	only    = flag.String("only", "", "run one section: load, first or repeat")
	work    = flag.String("work", "", "keep repositories, state and logs in this directory")
)

func main() {
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "bench/daemon:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	dir := *work
	if dir == "" {
		d, err := os.MkdirTemp("", "bench-daemon-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	bin := filepath.Join(dir, "optimizer")
	fmt.Fprintln(os.Stderr, "building the optimizer binary")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/optimizer-dev/optimizer/cmd/optimizer").CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v\n%s", err, out)
	}
	if *only == "" || *only == "load" {
		if err := benchLoad(ctx, bin, filepath.Join(dir, "load")); err != nil {
			return fmt.Errorf("load: %w", err)
		}
	}
	if *only == "" || *only == "first" {
		if err := benchFirst(ctx, bin, filepath.Join(dir, "first")); err != nil {
			return fmt.Errorf("first test: %w", err)
		}
	}
	if *only == "" || *only == "repeat" {
		if err := benchRepeat(ctx, bin, filepath.Join(dir, "repeat")); err != nil {
			return fmt.Errorf("repeat: %w", err)
		}
	}
	return nil
}
