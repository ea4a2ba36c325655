// Command power measures the power of optimizer's judge on real code: the
// smallest speedup it calls faster within its default budget, and how often
// it calls an A/A change anything. The targets are the accuracy fixture and
// real Go libraries fetched through the Go module proxy at pinned versions.
// Beside each, the same run gives what `go test -bench -count=10` plus
// benchstat's test (x/perf's benchmath) conclude on the same changes.
//
//	go run ./bench/power                               # every target, about 45 minutes on 2 cores
//	go run ./bench/power -targets humanize -aa 2       # one target, a quicker look
//	go run ./bench/power -targets uuid -steps none -aa 10 -reps 8 -at-once 4
//	                                                   # A/A under load: four jobs at once
//
// What flows through it:
//   - for each target the harness writes a base repository whose function
//     runs its body K times per call (targets.go). It writes one candidate
//     per trial: K−m times (K/(K−m) faster), or K times with a comment
//     changed (A/A);
//   - it builds the CLI once and runs one optimizer job per target, with
//     its default budget and --bench-filter on the function's benchmark;
//   - for each trial it runs `go test -run ^$ -bench B -count=N` on base
//     and then on the candidate, as a user of benchstat would. It compares
//     them with benchstat's test.
//
// It prints a Markdown table per job, and over several jobs the A/A
// false-positive rate and, for each true change, how often it was called
// faster, with 95% Wilson intervals and the machine time of a trial.
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
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	mach "github.com/optimizer-dev/optimizer/machine"
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
	Count   int   // go test -count; 0 runs no benchstat side
	// StatEvery runs the benchstat side on every StatEvery-th trial only:
	// its ten runs a side cost more than a whole optimizer trial.
	StatEvery int
	Work      string
	Flags     []string // extra optimizer flags
	// Samples are the sample lengths compared (see setting); one zero
	// setting, the CLI's own, when -samples is not given.
	Samples []setting
	Reps    int // jobs per target and setting
	// Interleave runs one job per trial and setting, the settings of a
	// trial back to back, so that they meet the same load.
	Interleave bool
	// AtOnce runs that many of a target's jobs at the same time, each
	// with its own TMPDIR and so its own machine lock: each job is the
	// others' load.
	AtOnce int
	// StopAfter, when positive, starts no job of a target once its jobs
	// have run this long; the summary covers the jobs done.
	StopAfter time.Duration
	// ABEvery puts the A/B trials in every ABEvery-th rep only; the
	// others run the A/A trials alone.
	ABEvery int

	// Copies > 0 runs the copies experiment instead (copies.go): that
	// many byte-identical copies, Pairs pairs each, Sample-long samples
	// pinned to CPU.
	Copies int
	// Duet > 0 runs the duet experiment instead (duet.go): that many
	// rounds of sequential and simultaneous pairs.
	Duet   int
	Pairs  int
	Sample time.Duration
	CPU    int
}

// A setting is one sample length through its own CLI build. Its most pairs
// are scaled so that the most a candidate can cost stays the default's:
// 30 pairs of 300 ms samples, 60 of 150 ms, 120 of 75 ms.
type setting struct {
	Sample   time.Duration // 0: the CLI's default, as built
	MaxPairs int           // 0: the CLI's default
}

// Default sample length and pair cap (evaluator's calibrateTarget and
// DefaultMaxPairs), which a shorter setting scales from.
const (
	defaultSample   = 300 * time.Millisecond
	defaultMaxPairs = 30
)

func (s setting) String() string {
	if s.Sample == 0 {
		return "default"
	}
	return fmt.Sprintf("%s×%d", s.Sample, s.MaxPairs)
}

// parseSamples reads -samples: durations, comma-separated.
func parseSamples(arg string) ([]setting, error) {
	if arg == "" {
		return []setting{{}}, nil
	}
	var out []setting
	for _, f := range strings.Split(arg, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(f))
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("-samples: %q is not a positive duration", f)
		}
		out = append(out, setting{Sample: d, MaxPairs: max(1, int(defaultMaxPairs*defaultSample/d))})
	}
	return out, nil
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("power", flag.ContinueOnError)
	fs.SetOutput(stderr)
	tg := fs.String("targets", "fixture,humanize,uuid", "targets, comma-separated")
	fs.IntVar(&o.K, "k", 40, "how many times base runs the function's body per call")
	steps := fs.String("steps", "2,3,4,6,8", "repetitions each A/B candidate removes (K/(K−m) faster), comma-separated; none: A/A trials only")
	fs.IntVar(&o.AA, "aa", 4, "A/A trials per target")
	fs.IntVar(&o.Count, "count", 10, "go test -count for the benchstat side; 0 runs no benchstat side")
	fs.IntVar(&o.StatEvery, "stat-every", 1, "run the benchstat side on every Nth trial of a target only")
	samples := fs.String("samples", "", "sample lengths to compare, comma-separated (e.g. 300ms,150ms,75ms): one CLI build each, its most pairs scaled to the same time cost, jobs interleaved")
	fs.IntVar(&o.Reps, "reps", 1, "optimizer jobs per target and sample length")
	fs.BoolVar(&o.Interleave, "interleave", false, "-samples: one job per trial and sample length, the lengths of each trial back to back (rotated), so they meet the same load")
	fs.IntVar(&o.ABEvery, "ab-every", 1, "run the A/B trials in every Nth rep only, the A/A trials in every rep")
	fs.DurationVar(&o.StopAfter, "stop-after", 0, "start no job of a target once its jobs have run this long, and sum up those done (0: run every rep)")
	fs.IntVar(&o.AtOnce, "at-once", 1, "run this many of a target's jobs (-reps × -samples) at the same time, each with its own TMPDIR and machine lock, so that each is the others' load")
	fs.IntVar(&o.Copies, "copies", 0, "instead of optimizer jobs: measure base's test binary against this many byte-identical copies, a hard link, a longer path and fresh copies (copies.go)")
	fs.IntVar(&o.Duet, "duet", 0, "instead of optimizer jobs: this many rounds of pairs run one side after the other on one CPU and both at once on two (duet.go)")
	fs.IntVar(&o.Pairs, "pairs", 20, "-copies: pairs per variant")
	fs.DurationVar(&o.Sample, "sample", 200*time.Millisecond, "-copies, -duet: calibrated sample length")
	fs.IntVar(&o.CPU, "cpu", runtime.NumCPU()-1, "-copies, -duet: the CPU to pin to (-duet: of sequential pairs)")
	fs.StringVar(&o.Work, "work", "", "work directory, kept (default: a temporary one, removed)")
	flagsArg := fs.String("flags", "", "extra optimizer flags, space-separated")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	o.Targets = strings.Split(*tg, ",")
	if *steps == "none" {
		*steps = ""
	}
	for _, s := range strings.FieldsFunc(*steps, func(r rune) bool { return r == ',' }) {
		m, err := strconv.Atoi(s)
		if err != nil || m <= 0 || m >= o.K {
			return o, fmt.Errorf("-steps: %q is not a count between 1 and %d", s, o.K-1)
		}
		o.Steps = append(o.Steps, m)
	}
	o.Flags = strings.Fields(*flagsArg)
	var err error
	if o.Samples, err = parseSamples(*samples); err != nil {
		return o, err
	}
	if o.Reps < 1 {
		return o, fmt.Errorf("-reps %d: want at least 1", o.Reps)
	}
	if o.AtOnce < 1 || o.AtOnce > 1 && o.Interleave {
		return o, fmt.Errorf("-at-once %d: want at least 1, and 1 with -interleave", o.AtOnce)
	}
	if o.ABEvery < 1 || o.ABEvery > 1 && (o.AA == 0 || len(o.Steps) == 0 || o.Interleave) {
		return o, fmt.Errorf("-ab-every %d: want 1, or more with both A/A and A/B trials and no -interleave", o.ABEvery)
	}
	if o.StatEvery < 1 {
		return o, fmt.Errorf("-stat-every %d: want at least 1", o.StatEvery)
	}
	if len(o.Steps) == 0 && o.AA == 0 {
		return o, errors.New("-steps none and -aa 0: no trials to run")
	}
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
	if o.Duet > 0 {
		if runtime.NumCPU() < 2 {
			return errors.New("-duet needs two CPUs")
		}
		fmt.Fprintf(stdout, "# bench/power -duet, %s\n\n- command: `go run ./bench/power %s`\n- machine: %s\n",
			time.Now().UTC().Format("2006-01-02 15:04 UTC"), strings.Join(args, " "), machine())
		for _, name := range o.Targets {
			t, ok := targetByName(name)
			if !ok {
				return fmt.Errorf("-targets: no target %q", name)
			}
			if err := duet(ctx, o, t, filepath.Join(work, t.Name), stdout, stderr); err != nil {
				return fmt.Errorf("%s: %w", t.Name, err)
			}
		}
		return nil
	}
	if o.Copies > 0 {
		fmt.Fprintf(stdout, "# bench/power -copies, %s\n\n- command: `go run ./bench/power %s`\n- machine: %s\n",
			time.Now().UTC().Format("2006-01-02 15:04 UTC"), strings.Join(args, " "), machine())
		for _, name := range o.Targets {
			t, ok := targetByName(name)
			if !ok {
				return fmt.Errorf("-targets: no target %q", name)
			}
			if err := copies(ctx, o, t, filepath.Join(work, t.Name), stdout, stderr); err != nil {
				return fmt.Errorf("%s: %w", t.Name, err)
			}
		}
		return nil
	}
	bins := map[setting]string{}
	for _, st := range o.Samples {
		bin := filepath.Join(work, "optimizer")
		build := []string{"build", "-o", bin}
		if st.Sample > 0 {
			bin += "-" + st.Sample.String()
			build = []string{"build", "-o", bin, "-ldflags", "-X github.com/optimizer-dev/optimizer/evaluator.sampleTime=" + st.Sample.String()}
		}
		if err := goRun(ctx, "", append(build, "github.com/optimizer-dev/optimizer/cmd/optimizer")...); err != nil {
			return fmt.Errorf("build optimizer: %w", err)
		}
		bins[st] = bin
	}
	fmt.Fprintf(stdout, "# bench/power, %s\n\n- command: `go run ./bench/power %s`\n- machine: %s\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), strings.Join(args, " "), machine())
	for _, name := range o.Targets {
		t, ok := targetByName(name)
		if !ok {
			return fmt.Errorf("-targets: no target %q", name)
		}
		res, err := measure(ctx, o, t, filepath.Join(work, t.Name), bins, stderr)
		if err != nil {
			return fmt.Errorf("%s: %w", t.Name, err)
		}
		for _, st := range o.Samples {
			for rep := range o.Reps {
				if rs := res[job{st, rep}]; len(rs) > 0 {
					writeTable(stdout, o, t, st, rep, rs)
				}
			}
		}
		if len(o.Samples) > 1 || o.Reps > 1 {
			writeSettings(stdout, o, t, res)
		} else {
			s := summarise(o, res[job{o.Samples[0], 0}])
			writeAA(stdout, o.Samples[0], s)
			writePower(stdout, o, o.Samples[0], s)
		}
	}
	return nil
}

// A job is one optimizer job of a target: a setting's rep.
type job struct {
	setting
	Rep int
}

// schedule orders a target's jobs rep by rep, each rep running every
// setting, in an order rotated by one each rep. So the load of the shared
// machine meets every setting alike over the run.
func schedule(o options) []job {
	var out []job
	for rep := range o.Reps {
		for i := range o.Samples {
			out = append(out, job{o.Samples[(i+rep)%len(o.Samples)], rep})
		}
	}
	return out
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
	if len(o.Steps) == 0 {
		for range o.AA {
			out = append(out, trial{fmt.Sprintf("t%02d-aa", len(out)+1), 0})
		}
		return out
	}
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
	Load      string // when the job ended
	LoadStart string // when the job started
	Started   time.Time
	// JobSecs is the machine time of the trial's job, its wall time from
	// start to report, shared equally among its trials.
	JobSecs float64
}

// measure runs one target: its base and candidates, one optimizer job
// per setting and rep (schedule), and benchstat trial by trial: after
// the jobs, or among them with -at-once.
func measure(ctx context.Context, o options, t target, dir string, bins map[setting]string, stderr io.Writer) (map[job][]result, error) {
	begin := time.Now()
	var skipped atomic.Int32 // jobs not run: -stop-after
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
	var (
		mu    sync.Mutex // guards out
		out   = map[job][]result{}
		sh    = newShares()
		stats = map[string]benchstatResult{} // by trial name
	)
	// runJob runs one optimizer job of trs, whose candidates are in cdir,
	// and files its results under jb.
	runJob := func(ctx context.Context, jb job, trs []trial, cdir, name string) error {
		jdir := dir
		extra := o.Flags
		var env []string
		if name != "" {
			jdir = filepath.Join(dir, name)
			if err := os.MkdirAll(jdir, 0o755); err != nil {
				return err
			}
		}
		if o.AtOnce > 1 {
			tmp := filepath.Join(jdir, "tmp")
			if err := os.MkdirAll(tmp, 0o755); err != nil {
				return err
			}
			env = []string{"TMPDIR=" + tmp}
		}
		if jb.MaxPairs > 0 {
			extra = append([]string{"--max-pairs", fmt.Sprint(jb.MaxPairs)}, extra...)
		}
		started, load0 := time.Now(), mach.Load()
		fmt.Fprintf(stderr, "%s %s rep %d: optimizer job of %d candidates, %s, load %s\n", t.Name, jb.setting, jb.Rep+1, len(trs), started.UTC().Format("15:04:05"), load0)
		id := sh.start(started)
		rep, err := optimizerJob(ctx, bins[jb.setting], jdir, repo, cdir, t.Bench, extra, env)
		machineSecs := sh.stop(id, time.Now())
		if err != nil {
			return err
		}
		load1 := mach.Load()
		jobSecs := machineSecs / float64(max(1, len(trs)))
		mu.Lock()
		defer mu.Unlock()
		byName := map[string]jobCandidate{}
		for _, c := range rep.Candidates {
			byName[c.Name] = c
		}
		for _, tr := range trs {
			c := byName[tr.Name]
			r := result{trial: tr, Verdict: c.Verdict, Speedup: c.Speedup, Pairs: c.Pairs, BenchSecs: c.BenchSeconds,
				Load: load1, LoadStart: load0, Started: started, JobSecs: jobSecs}
			if c.CI != nil {
				r.CI = *c.CI
			}
			fmt.Fprintf(stderr, "%s %s %s: optimizer %s %.3f× in %d pairs, %.1fs\n", t.Name, jb.setting, tr.Name, r.Verdict, r.Speedup, r.Pairs, r.BenchSecs)
			out[jb] = append(out[jb], r)
		}
		return nil
	}
	if o.Interleave {
		// One job per trial and setting, the settings of each trial one
		// after the other, in an order rotated trial by trial.
		for rep := range o.Reps {
			for ti, tr := range trials {
				one := filepath.Join(dir, "one", tr.Name)
				if err := copyTree(filepath.Join(cands, tr.Name), filepath.Join(one, tr.Name)); err != nil {
					return nil, err
				}
				for i := range o.Samples {
					st := o.Samples[(i+ti+rep)%len(o.Samples)]
					if err := runJob(ctx, job{st, rep}, []trial{tr}, one, fmt.Sprintf("job-%s-%d-%s", st.Sample, rep+1, tr.Name)); err != nil {
						return nil, err
					}
				}
			}
		}
	} else {
		var aaOnly []trial
		if o.ABEvery > 1 {
			if aaOnly, err = aaTrials(trials, cands, filepath.Join(dir, "candidates-aa")); err != nil {
				return nil, err
			}
		}
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(o.AtOnce)
		if o.AtOnce > 1 && o.Count > 0 {
			// The benchstat side first, among the jobs, so that it meets
			// their load.
			g.Go(func() error { return statSide(gctx, o, t, trials, repo, cands, dir, sh, stats, stderr) })
		}
		for _, jb := range schedule(o) {
			name := ""
			if jb.Sample > 0 || o.Reps > 1 {
				name = fmt.Sprintf("job-%s-%d", jb.Sample, jb.Rep+1)
			}
			if gctx.Err() != nil {
				break
			}
			trs, cdir := trials, cands
			if o.ABEvery > 1 && jb.Rep%o.ABEvery != 0 {
				trs, cdir = aaOnly, filepath.Join(dir, "candidates-aa")
			}
			g.Go(func() error {
				if o.StopAfter > 0 && time.Since(begin) > o.StopAfter {
					skipped.Add(1)
					return nil
				}
				return runJob(gctx, jb, trs, cdir, name)
			})
		}
		if err := g.Wait(); err != nil {
			return nil, err
		}
		if n := skipped.Load(); n > 0 {
			fmt.Fprintf(stderr, "%s: -stop-after %s: %d jobs not run\n", t.Name, o.StopAfter, n)
		}
	}
	if o.Count > 0 && o.AtOnce == 1 {
		if err := statSide(ctx, o, t, trials, repo, cands, dir, sh, stats, stderr); err != nil {
			return nil, err
		}
	}
	// A trial's benchstat result serves every job that ran it.
	for jb, rs := range out {
		for i := range rs {
			out[jb][i].Stat = stats[rs[i].Name]
		}
	}
	return out, nil
}

// statSide runs benchstat once per trial (every StatEvery-th): its side
// does not depend on the optimizer's setting. It files results by trial
// name in stats, which it alone writes until it returns.
func statSide(ctx context.Context, o options, t target, trials []trial, repo, cands, dir string, sh *shares, stats map[string]benchstatResult, stderr io.Writer) error {
	id := sh.start(time.Now())
	defer func() { sh.stop(id, time.Now()) }()
	for i, tr := range trials {
		if i%o.StatEvery != 0 {
			continue
		}
		st, err := benchstat(ctx, t, repo, filepath.Join(cands, tr.Name), filepath.Join(dir, "benchstat"), o.Count)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "%s %s: benchstat %s (p=%.3f) in %.0fs\n", t.Name, tr.Name, st.Delta, st.P, st.Secs)
		stats[tr.Name] = st
	}
	return nil
}

// aaTrials returns trials' A/A ones, with their candidates copied from
// cands into dir: a job of A/A trials only (-ab-every) reads dir.
func aaTrials(trials []trial, cands, dir string) ([]trial, error) {
	var out []trial
	for _, tr := range trials {
		if tr.M != 0 {
			continue
		}
		if err := copyTree(filepath.Join(cands, tr.Name), filepath.Join(dir, tr.Name)); err != nil {
			return nil, err
		}
		out = append(out, tr)
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
// keeps the trials apart. A/A candidates build byte-identical benchmark
// binaries, whose pairs the result cache would otherwise share.
func optimizerJob(ctx context.Context, bin, dir, repo, cands, bench string, extra, env []string) (struct{ Candidates []jobCandidate }, error) {
	var rep struct{ Candidates []jobCandidate }
	args := append([]string{bin, "--repo", repo, "--candidates", cands, "--db", filepath.Join(dir, "store.db"),
		"--format", "json", "--no-profile", "--no-cache", "--bench-filter", bench}, extra...)
	var stdout bytes.Buffer
	res, err := proc.Run(ctx, proc.Cmd{Args: args, Env: env, CPU: -1, Stdout: &stdout, MaxOutput: 1 << 20})
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

// shares splits the run's wall time among the jobs running at once: a
// job's machine time is the integral of 1/(jobs running) over its wall
// time. One job at a time gets its whole wall time.
type shares struct {
	mu      sync.Mutex
	last    time.Time
	next    int
	running map[int]float64 // a running job's machine seconds so far
}

func newShares() *shares { return &shares{running: map[int]float64{}} }

// tick shares the time since the last event among the running jobs.
func (s *shares) tick(now time.Time) {
	if n := len(s.running); n > 0 {
		d := now.Sub(s.last).Seconds() / float64(n)
		for id := range s.running {
			s.running[id] += d
		}
	}
	s.last = now
}

func (s *shares) start(now time.Time) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tick(now)
	s.next++
	s.running[s.next] = 0
	return s.next
}

// stop ends a job's share and returns its machine seconds.
func (s *shares) stop(id int, now time.Time) float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tick(now)
	secs := s.running[id]
	delete(s.running, id)
	return secs
}
