// Command eta checks the progress lines' ETAs against what really happened:
// it runs the CLI with the arguments given (plain progress lines on stderr,
// as a pipe gets them), stamps each line as it arrives, and measures every
// ETA it printed against the time that really was left: to the end of the
// tests (the "phase: benchmark" line, or the last verdict) for a "tests
// ETA", to the last verdict for an "ETA". It measures two ways (measure.go):
//
//   - per line: predicted / actual time left on each line with an ETA;
//
//   - over time: the share of each phase during which the ETA last printed,
//     counted down since, was within 1.5× of the time really left.
//
//     go run ./bench/eta -- demo --dir /tmp/d
//     go run ./bench/eta -bin /tmp/old -log /tmp/old.log -- --repo R --candidates C -j 2
//     go run ./bench/eta -replay /tmp/old.log
//
// With -tty it runs the CLI on a terminal instead (a pseudo-terminal made
// by util-linux's script), where the progress is a bar redrawn in place
// with the ETA now (tty.go): each redrawn bar counts as a line, so over
// time it measures the ETA on the bar.
//
//	go run ./bench/eta -tty -- demo --dir /tmp/d
//
// With -store it measures instead a job's stored pairs replayed through the
// ETA at a fixed pace (replay.go): the pairs each benchmark takes, free of
// the machine's noise, so that two versions of the ETA can be compared on
// the same jobs.
//
//	go run ./bench/eta -store /tmp/s.db [-job ID]
//
// With -history it replays every job in the stores given without a
// history, with the pairs of the earlier jobs like it as its history, and
// with them by candidate (history.go), as a job finds them in its store.
//
//	go run ./bench/eta -history /tmp/a.db /tmp/b.db
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

func main() {
	bin := flag.String("bin", "", "the optimizer binary to run (default: build ./cmd/optimizer)")
	logf := flag.String("log", "", "also write the stamped lines to this file, for -replay")
	replay := flag.String("replay", "", "measure the stamped lines of an earlier run's -log instead of running")
	storePath := flag.String("store", "", "replay a stored job's pairs through the ETA instead of running (replay.go)")
	jobID := flag.String("job", "", "with -store, the job to replay (default: the latest)")
	tty := flag.Bool("tty", false, "run the CLI on a pseudo-terminal (util-linux script) and measure the ETA on its bar")
	history := flag.Bool("history", false, "replay every job in the stores given as arguments without a history, with the earlier jobs' pairs and with them by candidate (history.go)")
	quiet := flag.Float64("quiet", 1, "with -store or -history, replay the pairs at this share of their spread, each benchmark cut where it then settles (quiet.go)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: go run ./bench/eta [-bin B] [-log F] [-tty] -- OPTIMIZER-ARGS...\n       go run ./bench/eta -replay F\n       go run ./bench/eta -store S [-job ID]\n       go run ./bench/eta -history S...")
		flag.PrintDefaults()
	}
	flag.Parse()
	switch {
	case !(*quiet > 0 && *quiet <= 1): // NaN too
		fmt.Fprintln(os.Stderr, "eta: -quiet must be in (0, 1]")
		os.Exit(2)
	case *quiet != 1 && !*history && *storePath == "":
		fmt.Fprintln(os.Stderr, "eta: -quiet replays stored pairs: give it with -store or -history")
		os.Exit(2)
	}
	var lines []stamped
	var err error
	switch {
	case *history && flag.NArg() == 0:
		flag.Usage()
		os.Exit(2)
	case *history:
		jobs, err := loadAll(context.Background(), flag.Args())
		if err != nil {
			fmt.Fprintln(os.Stderr, "eta:", err)
			os.Exit(1)
		}
		for i := range jobs {
			jobs[i].runs = quieter(jobs[i].cfg, jobs[i].runs, *quiet)
		}
		reportHistory(os.Stdout, jobs)
		return
	case *storePath != "":
		job, cfg, runs, err := loadRuns(context.Background(), *storePath, *jobID)
		if err != nil {
			fmt.Fprintln(os.Stderr, "eta:", err)
			os.Exit(1)
		}
		reportReplay(os.Stdout, job, cfg, quieter(cfg, runs, *quiet))
		return
	case *replay != "":
		lines, err = readLog(*replay)
	case flag.NArg() == 0:
		flag.Usage()
		os.Exit(2)
	default:
		lines, err = run(*bin, flag.Args(), *tty)
		if err == nil && *logf != "" {
			err = writeLog(*logf, lines)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "eta:", err)
		os.Exit(1)
	}
	report(os.Stdout, lines)
}

func run(bin string, args []string, tty bool) ([]stamped, error) {
	if bin == "" {
		dir, err := os.MkdirTemp("", "eta-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		bin = filepath.Join(dir, "optimizer")
		if out, err := exec.Command("go", "build", "-o", bin, "./cmd/optimizer").CombinedOutput(); err != nil {
			return nil, fmt.Errorf("build the CLI: %v\n%s", err, out)
		}
	}
	if tty {
		return captureTTY(bin, args)
	}
	return capture(bin, args)
}

// capture runs the CLI and stamps its stderr lines.
func capture(bin string, args []string) ([]stamped, error) {
	cmd := exec.Command(bin, args...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	return stampRun(cmd, pipe, splitLines)
}

// stampRun starts cmd, stamps what split reads from its output pipe with
// the time since the start, and waits for it to end.
func stampRun(cmd *exec.Cmd, pipe io.Reader, split func(io.Reader, func() time.Duration) []stamped) ([]stamped, error) {
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	lines := split(pipe, func() time.Duration { return time.Since(start) })
	if err := cmd.Wait(); err != nil {
		return lines, fmt.Errorf("optimizer: %w", err)
	}
	return lines, nil
}

// splitLines reads r's lines until it ends, each stamped with the time now
// gives when it came, and echoes them to stderr.
func splitLines(r io.Reader, now func() time.Duration) []stamped {
	var lines []stamped
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		at := now()
		lines = append(lines, stamped{at, sc.Text()})
		fmt.Fprintf(os.Stderr, "%7.1fs %s\n", at.Seconds(), sc.Text())
	}
	return lines
}

// writeLog writes lines as "SECONDS<TAB>TEXT".
func writeLog(name string, lines []stamped) error {
	var b strings.Builder
	for _, l := range lines {
		fmt.Fprintf(&b, "%.3f\t%s\n", l.at.Seconds(), l.text)
	}
	return os.WriteFile(name, []byte(b.String()), 0o644)
}

// readLog reads what writeLog wrote.
func readLog(name string) ([]stamped, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var lines []stamped
	for i, s := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		at, text, ok := strings.Cut(s, "\t")
		sec, err := strconv.ParseFloat(at, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("%s:%d: not SECONDS<TAB>TEXT", name, i+1)
		}
		lines = append(lines, stamped{time.Duration(sec * float64(time.Second)), text})
	}
	return lines, nil
}
