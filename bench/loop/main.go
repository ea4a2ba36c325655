// Command loop measures the optimisation loop's throughput: candidates per
// minute through `optimizer optimize`, at -j 1 and at the default -j. It
// also measures how the time splits between generators and judging (tests
// and benchmarks). It runs the real CLI on two fixtures:
//
//   - go: the fixture module's sumsq.SumSquares with the example generator
//     (a wrong rewrite, its repair, a refinement);
//   - shell: a shell project whose sum of squares is a slow loop, with a
//     scripted generator. The generator proposes four rewrites a round (one
//     wrong, one that does not run, two right), repairs, and refines.
//
// It prints a Markdown table (docs/speed.md).
//
//	go run ./bench/loop            # both fixtures, -j 1 and default, once
//	go run ./bench/loop -reps 3
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/testdata"
)

func main() {
	reps := flag.Int("reps", 1, "runs of each configuration")
	flag.Parse()
	if err := run(context.Background(), *reps); err != nil {
		fmt.Fprintln(os.Stderr, "bench/loop:", err)
		os.Exit(1)
	}
}

type fixture struct {
	name  string
	setup func(ctx context.Context, dir, bin string) (repo string, args []string, err error)
}

func run(ctx context.Context, reps int) error {
	work, err := os.MkdirTemp("", "optimizer-bench-loop-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	bin := filepath.Join(work, "optimizer")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/optimizer").CombinedOutput(); err != nil {
		return fmt.Errorf("build: %w\n%s", err, out)
	}
	host, _ := os.Hostname()
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("Machine: %s, %s; load average at start: %.14s.\n\n", host, time.Now().UTC().Format("2006-01-02 15:04 MST"), load)
	fmt.Println("| fixture | -j | candidates | rounds | wall | candidates/min | generators | judging (tests, benchmarks) |")
	fmt.Println("|---|---|---:|---:|---:|---:|---:|---:|")
	for _, fx := range []fixture{{"go", goFixture}, {"shell", shellFixture}} {
		for _, j := range []string{"1", "auto"} {
			for r := 0; r < reps; r++ {
				dir := filepath.Join(work, fmt.Sprintf("%s-%s-%d", fx.name, j, r))
				repo, args, err := fx.setup(ctx, dir, bin)
				if err != nil {
					return fmt.Errorf("%s: %w", fx.name, err)
				}
				rep, wall, err := optimize(ctx, bin, repo, append(args, "-j", j))
				if err != nil {
					return fmt.Errorf("%s -j %s: %w", fx.name, j, err)
				}
				n := len(rep.Candidates)
				fmt.Printf("| %s | %s | %d | %d | %.0fs | %.1f | %.1fs (%.0f%%) | %.1fs (%.0f%%) |\n", fx.name, j, n, len(rep.Rounds),
					wall.Seconds(), float64(n)/wall.Minutes(), rep.GeneratorSeconds, 100*rep.GeneratorSeconds/wall.Seconds(),
					rep.JudgeSeconds, 100*rep.JudgeSeconds/wall.Seconds())
			}
		}
	}
	return nil
}

// report is the part of the loop's JSON report the table needs.
type report struct {
	Candidates       []json.RawMessage `json:"candidates"`
	Rounds           []json.RawMessage `json:"rounds"`
	GeneratorSeconds float64           `json:"generator_seconds"`
	JudgeSeconds     float64           `json:"judge_seconds"`
}

func optimize(ctx context.Context, bin, repo string, args []string) (report, time.Duration, error) {
	cmd := exec.CommandContext(ctx, bin, append([]string{"optimize", "--repo", repo, "--format", "json"}, args...)...)
	var stderr = new(limited)
	cmd.Stderr = stderr
	start := time.Now()
	out, err := cmd.Output()
	wall := time.Since(start)
	var rep report
	if err != nil {
		return rep, wall, fmt.Errorf("%w: %s", err, stderr.b)
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		return rep, wall, err
	}
	if len(rep.Candidates) == 0 {
		return rep, wall, errors.New("no candidate went through the loop")
	}
	return rep, wall, nil
}

// limited keeps the last 4 KiB written to it.
type limited struct{ b []byte }

func (l *limited) Write(p []byte) (int, error) {
	l.b = append(l.b, p...)
	if len(l.b) > 4096 {
		l.b = l.b[len(l.b)-4096:]
	}
	return len(p), nil
}

func goFixture(ctx context.Context, dir, bin string) (string, []string, error) {
	repo := filepath.Join(dir, "repo")
	if err := testdata.WriteFixture(repo); err != nil {
		return "", nil, err
	}
	if _, err := testdata.InitRepo(ctx, repo); err != nil {
		return "", nil, err
	}
	return repo, []string{"--target", "sumsq.SumSquares", "--generate", bin + " demo-generator", "--max-pairs", "12", "--bench-budget", "20s"}, nil
}

// The shell fixture: sumsq.sh adds up the squares of its arguments in a
// slow loop of expr calls; test.sh checks it; bench.sh runs it on 60 numbers.
const (
	shellSumsq = "#!/bin/sh\nt=0\nfor x in \"$@\"; do t=$(expr $t + $x \\* $x); done\necho $t\n"
	shellTest  = "set -e\ntest \"$(sh sumsq.sh)\" = 0\ntest \"$(sh sumsq.sh 3)\" = 9\ntest \"$(sh sumsq.sh 1 2 3 4)\" = 30\necho ok\n"
	shellBench = "sh sumsq.sh $(seq 1 60) >/dev/null\n"
	// shellGen answers each mode with candidates in the JSONL format.
	shellGen = `mode=$(grep -o '"mode": "[a-z]*"' | cut -d'"' -f4)
awk_ok='#!/bin/sh\necho \"$@\" | awk '"'"'{t=0; for (i=1;i<=NF;i++) t+=$i*$i; print t}'"'"'\n'
case $mode in
generate)
  printf '%s\n' '{"name":"skip-first","files":{"sumsq.sh":"#!/bin/sh\nshift\nt=0\nfor x in \"$@\"; do t=$((t + x * x)); done\necho $t\n"}}'
  printf '%s\n' '{"name":"typo","files":{"sumsq.sh":"#!/bin/sh\nt=0\nfor x in \"$@\"; do t=$((t + x * x); done\necho $t\n"}}'
  printf '%s\n' '{"name":"arith","files":{"sumsq.sh":"#!/bin/sh\nt=0\nfor x in \"$@\"; do t=$((t + x * x)); done\necho $t\n"}}'
  printf '{"name":"awk","files":{"sumsq.sh":"%s"}}\n' "$awk_ok" ;;
repair)
  printf '%s\n' '{"name":"arith","files":{"sumsq.sh":"#!/bin/sh\nt=0\nfor x in \"$@\"; do t=$((t + x * x)); done\necho $t\n"}}' ;;
refine)
  printf '%s\n' '{"name":"arith-unrolled","files":{"sumsq.sh":"#!/bin/sh\nt=0\nwhile [ $# -ge 2 ]; do t=$((t + $1 * $1 + $2 * $2)); shift 2; done\n[ $# -eq 1 ] && t=$((t + $1 * $1))\necho $t\n"}}' ;;
esac
`
)

func shellFixture(ctx context.Context, dir, bin string) (string, []string, error) {
	repo := filepath.Join(dir, "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		return "", nil, err
	}
	for name, body := range map[string]string{"sumsq.sh": shellSumsq, "test.sh": shellTest, "bench.sh": shellBench} {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(body), 0o644); err != nil {
			return "", nil, err
		}
	}
	gen := filepath.Join(dir, "gen.sh")
	if err := os.WriteFile(gen, []byte(shellGen), 0o644); err != nil {
		return "", nil, err
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"},
		{"-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "commit", "-q", "-m", "shell fixture"}} {
		if _, err := gitcmd.Run(ctx, gitcmd.Cmd{Dir: repo, Args: args}); err != nil {
			return "", nil, err
		}
	}
	return repo, []string{"--target", "sumsq.sh:sumsq", "--generate", "sh " + gen, "--test", "sh test.sh",
		"--bench", "sh bench.sh", "--no-profile", "--max-pairs", "12", "--bench-budget", "20s"}, nil
}
