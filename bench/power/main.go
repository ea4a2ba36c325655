// Command power measures issue 13's "power on real code": the smallest
// speedup optimizer calls faster within its default budget, and how often
// it calls an A/A change anything, on the accuracy fixture and on real Go
// libraries fetched through the Go module proxy at pinned versions, beside
// what `go test -bench -count=10` plus benchstat's test (x/perf's
// benchmath, at the version go.mod pins) conclude on the same changes, on
// the same machine, in the same run.
//
//	go run ./bench/power                               # every target, about 45 minutes on 2 cores
//	go run ./bench/power -targets humanize -aa 2       # one target, a quicker look
//
// What flows through it: for each target the harness writes a base
// repository whose function runs its body K times per call (targets.go),
// and one candidate per trial: K−m times (K/(K−m) faster), or K times with
// a comment changed (A/A). It builds the CLI once, runs one optimizer job
// per target (its default budget and pair limits, --bench-filter on the
// one benchmark of the function), then for each trial runs `go test
// -run ^$ -bench B -count=N` on base and then on the candidate, as a user
// of benchstat would, and compares them with benchstat's test. It prints a
// Markdown table per target.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/proc"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "power:", err)
		}
		os.Exit(1)
	}
}

type options struct {
	Targets []string
	K       int   // base's repetitions
	Steps   []int // candidates' repetitions removed: K/(K−m) faster
	AA      int   // A/A trials per target
	Count   int   // go test -count
	Work    string
	Flags   []string // extra optimizer flags
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("power", flag.ContinueOnError)
	fs.SetOutput(stderr)
	tg := fs.String("targets", "fixture,humanize,uuid", "targets, comma-separated")
	fs.IntVar(&o.K, "k", 40, "how many times base runs the function's body per call")
	steps := fs.String("steps", "2,3,4,6,8", "repetitions each A/B candidate removes (K/(K−m) faster), comma-separated")
	fs.IntVar(&o.AA, "aa", 4, "A/A trials per target")
	fs.IntVar(&o.Count, "count", 10, "go test -count for the benchstat side")
	fs.StringVar(&o.Work, "work", "", "work directory, kept (default: a temporary one, removed)")
	flagsArg := fs.String("flags", "", "extra optimizer flags, space-separated")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	o.Targets = strings.Split(*tg, ",")
	for _, s := range strings.Split(*steps, ",") {
		m, err := strconv.Atoi(s)
		if err != nil || m <= 0 || m >= o.K {
			return o, fmt.Errorf("-steps: %q is not a count between 1 and %d", s, o.K-1)
		}
		o.Steps = append(o.Steps, m)
	}
	o.Flags = strings.Fields(*flagsArg)
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	work := o.Work
	if work == "" {
		if work, err = os.MkdirTemp("", "power-"); err != nil {
			return err
		}
		defer os.RemoveAll(work)
	}
	bin := filepath.Join(work, "optimizer")
	if err := goRun(ctx, "", "build", "-o", bin, "github.com/optimizer-dev/optimizer/cmd/optimizer"); err != nil {
		return fmt.Errorf("build optimizer: %w", err)
	}
	fmt.Fprintf(stdout, "# bench/power, %s\n\n- command: `go run ./bench/power %s`\n- machine: %s\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), strings.Join(args, " "), machine())
	for _, name := range o.Targets {
		t, ok := targetByName(name)
		if !ok {
			return fmt.Errorf("-targets: no target %q", name)
		}
		res, err := measure(ctx, o, t, filepath.Join(work, t.Name), bin, stderr)
		if err != nil {
			return fmt.Errorf("%s: %w", t.Name, err)
		}
		writeTable(stdout, o, t, res)
	}
	return nil
}

// A trial is one candidate: m repetitions removed (0: A/A).
type trial struct {
	Name string
	M    int
}

func (o options) ratio(m int) float64 { return float64(o.K) / float64(o.K-m) }

// plan interleaves the A/A trials among the A/B ones, so that both meet
// the same machine over the run.
func plan(o options) []trial {
	var out []trial
	aa := 0
	for i, m := range o.Steps {
		out = append(out, trial{fmt.Sprintf("t%02d-m%d", len(out)+1, m), m})
		for aa < o.AA*(i+1)/len(o.Steps) {
			out = append(out, trial{fmt.Sprintf("t%02d-aa", len(out)+1), 0})
			aa++
		}
	}
	return out
}

// result is what both methods said of one trial.
type result struct {
	trial
	Verdict   string
	Speedup   float64
	CI        [2]float64
	Pairs     int
	BenchSecs float64
	Stat      benchstatResult
	Load      string
}

// measure runs one target: its base and candidates, one optimizer job,
// then benchstat trial by trial.
func measure(ctx context.Context, o options, t target, dir, bin string, stderr io.Writer) ([]result, error) {
	repo, cands := filepath.Join(dir, "repo"), filepath.Join(dir, "candidates")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	pkg, err := writeBase(ctx, t, repo, o.K)
	if err != nil {
		return nil, err
	}
	trials := plan(o)
	for _, tr := range trials {
		reps := o.K - tr.M
		f := filepath.Join(cands, tr.Name, t.Pkg, "repeat.go")
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(f, t.repeatFile(pkg, reps, tr.Name), 0o644); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(stderr, "%s: optimizer job of %d candidates, load %s\n", t.Name, len(trials), loadavg())
	rep, err := optimizerJob(ctx, bin, dir, repo, cands, t.Bench, o.Flags)
	if err != nil {
		return nil, err
	}
	byName := map[string]jobCandidate{}
	for _, c := range rep.Candidates {
		byName[c.Name] = c
	}
	var out []result
	for _, tr := range trials {
		c := byName[tr.Name]
		r := result{trial: tr, Verdict: c.Verdict, Speedup: c.Speedup, Pairs: c.Pairs, BenchSecs: c.BenchSeconds, Load: loadavg()}
		if c.CI != nil {
			r.CI = *c.CI
		}
		fmt.Fprintf(stderr, "%s %s: optimizer %s %.3f× in %d pairs; benchstat...\n", t.Name, tr.Name, r.Verdict, r.Speedup, r.Pairs)
		if r.Stat, err = benchstat(ctx, t, repo, filepath.Join(cands, tr.Name), filepath.Join(dir, "benchstat"), o.Count); err != nil {
			return nil, err
		}
		fmt.Fprintf(stderr, "%s %s: benchstat %s (p=%.3f) in %.0fs\n", t.Name, tr.Name, r.Stat.Delta, r.Stat.P, r.Stat.Secs)
		out = append(out, r)
	}
	return out, nil
}

// jobCandidate is the part of a candidate's JSON report the harness reads.
type jobCandidate struct {
	Name         string      `json:"name"`
	Verdict      string      `json:"verdict"`
	Speedup      float64     `json:"speedup"`
	CI           *[2]float64 `json:"ci"`
	Pairs        int         `json:"pairs"`
	BenchSeconds float64     `json:"bench_seconds"`
}

// optimizerJob runs the CLI on the candidates with its defaults, but for
// the one benchmark of the target, and returns its report. --no-cache
// keeps the trials apart: A/A candidates build byte-identical benchmark
// binaries, whose pairs the result cache would otherwise share.
func optimizerJob(ctx context.Context, bin, dir, repo, cands, bench string, extra []string) (struct{ Candidates []jobCandidate }, error) {
	var rep struct{ Candidates []jobCandidate }
	args := append([]string{bin, "--repo", repo, "--candidates", cands, "--db", filepath.Join(dir, "store.db"),
		"--format", "json", "--no-profile", "--no-cache", "--bench-filter", bench}, extra...)
	var stdout bytes.Buffer
	res, err := proc.Run(ctx, proc.Cmd{Args: args, CPU: -1, Stdout: &stdout, MaxOutput: 1 << 20})
	if err != nil {
		return rep, err
	}
	if werr := os.WriteFile(filepath.Join(dir, "optimizer.log"), res.Output, 0o644); werr != nil {
		return rep, werr
	}
	if res.ExitCode != 0 && res.ExitCode != 3 {
		return rep, fmt.Errorf("optimizer exits %d (see %s)", res.ExitCode, filepath.Join(dir, "optimizer.log"))
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		return rep, fmt.Errorf("read the report: %w", err)
	}
	return rep, nil
}

func goRun(ctx context.Context, dir string, args ...string) error {
	res, err := proc.Run(ctx, proc.Cmd{Args: append([]string{"go"}, args...), Dir: dir, CPU: -1})
	if err != nil {
		return err
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("go %s: exit %d:\n%s", strings.Join(args, " "), res.ExitCode, res.Output)
	}
	return nil
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
