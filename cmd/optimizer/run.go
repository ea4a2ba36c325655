package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/optimizer-dev/optimizer/cmd/optimizer/internal/config"
	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/machine"
	"github.com/optimizer-dev/optimizer/proc"
	"github.com/optimizer-dev/optimizer/progress"
	"github.com/optimizer-dev/optimizer/report"
	"github.com/optimizer-dev/optimizer/store"
	"github.com/optimizer-dev/optimizer/watch"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// newRunCmd builds optimizer run; the root command is one too.
func newRunCmd(use string, stdout, stderr io.Writer) *cobra.Command {
	o := defaultRunOptions()
	var sf config.Shard
	cmd := &cobra.Command{
		Use:   use + " [flags]",
		Short: "Evaluate candidates against a base commit (the default command)",
		Long:  "Evaluate candidates against a base commit.\n\n" + benchContract,
		Example: `  optimizer -j 4 --candidates ./candidates
  optimizer --candidate-ref feature --base main --format markdown`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.configure(cmd.Context(), cmd); err != nil {
				return err
			}
			var err error
			if o.Shard, err = sf.Resolve(o.DB); err != nil {
				return &usageError{err} // a shard has a --db of its own, so it never runs on the daemon
			}
			if c := o.onDaemon(cmd.Context()); c != nil {
				return runOnDaemon(cmd.Context(), c, o, stdout, stderr)
			}
			return runJob(cmd.Context(), o, stdout, stderr)
		},
	}
	o.register(cmd.Flags())
	sf.Register(cmd.Flags())
	o.registerDaemon(cmd.Flags())
	return cmd
}

// benchContract is what a --bench command must do, for --help.
const benchContract = `The bench command (--bench CMD) runs with sh -c in a slot, once per sample.
Base and candidate alternate in pairs (a coin picks which side goes first),
from --min-pairs up to --max-pairs pairs or --bench-budget per candidate,
pinned to one CPU, with nothing else running. What is judged:
  - the lines it prints in the Go benchmark format, when there are any:
      BenchmarkName ITERATIONS VALUE UNIT [VALUE UNIT ...]
      BenchmarkParse 1 183000 ns/op 512 B/op
    each name and unit is a metric; print ns/op (lower is faster), and
    B/op and allocs/op are reported beside it with intervals (--metric
    allocs or bytes judges them instead);
  - the results of pytest-benchmark, Google Benchmark, criterion, vitest
    bench, tinybench, hyperfine or JMH, on stdout or in the file it writes
    (--bench-report, or the file its flags name): each benchmark's time per
    iteration, as the tool measured it (docs/languages.md);
  - otherwise its wall time (with --metric cpu, its user+sys CPU time);
  - with --metric rss, its peak resident memory per sample, time beside.
So the command must do the same work on every run and exit 0. A timer that
calibrates its own loop count (python -m timeit) runs for about the same time
whatever the code does: print its time per loop as a Go benchmark line
instead, or use one of the tools above. optimizer warns when a command's output looks self-calibrated, or
when its time stays the same while the numbers it prints change.`

// configure merges optimizer.toml at the repo root under the flags given,
// then validates the result.
func (o *runOptions) configure(ctx context.Context, cmd *cobra.Command) error {
	r, err := gitcmd.FindRepo(ctx, o.Repo)
	if err != nil {
		return err
	}
	onCommandLine := cmd.Flags().Changed("parallel-candidates")
	if err := config.Merge(cmd.Flags(), filepath.Join(r.Root, config.File)); err != nil {
		return &usageError{err}
	}
	if !onCommandLine && cmd.Flags().Changed("parallel-candidates") {
		o.ParallelFrom = config.File
	}
	if err := o.validate(); err != nil {
		return err
	}
	for _, p := range o.CopyIgnored {
		if _, err := path.Match(p, ""); err != nil {
			return usageErrorf("--copy-ignored %q: %v", p, err)
		}
	}
	o.CopyFiles, err = r.IgnoredFiles(ctx, o.CopyIgnored)
	if errors.Is(err, gitcmd.ErrNoMatch) {
		err = fmt.Errorf("--copy-ignored %w", err)
	}
	return err
}

// runJob is optimizer run: resolve the job, open the store and the pool,
// evaluate, print the report. o must be validated.
func runJob(ctx context.Context, o runOptions, stdout, stderr io.Writer) error {
	plan, err := planJob(ctx, o, stderr)
	if err != nil {
		return err
	}
	return executeJob(ctx, o, plan, stderr, func(rep *evaluator.Report, err error) error {
		stopped := ""
		if rep != nil {
			stopped = "job " + rep.Job + " is recorded as interrupted"
		}
		return endRun(ctx, o, rep, err, stdout, stopped)
	})
}

// endRun prints a run's report, in-process or from a daemon, and turns how
// it ended into run's error. That is an interruption (stopped says what
// became of the job), the job's error, or the regression gate.
func endRun(ctx context.Context, o runOptions, rep *evaluator.Report, err error, stdout io.Writer, stopped string) error {
	if rep != nil {
		if werr := report.Write(stdout, rep, o.Format); werr != nil && err == nil {
			err = werr
		}
	}
	switch {
	case ctx.Err() != nil && rep != nil:
		return fmt.Errorf("%w: %s", errInterrupted, stopped)
	case ctx.Err() != nil:
		return errInterrupted
	case err != nil:
		return fmt.Errorf("evaluate: %w", err)
	case o.FailOnFailed && allFailed(rep):
		return fmt.Errorf("%w (--fail-on-failed): %s", errAllFailed, strings.TrimPrefix(report.NoWinner(rep), "none: "))
	case o.FailOnRegr:
		return regressions(rep)
	}
	return nil
}

// allFailed reports whether rep has candidates and every one failed.
func allFailed(rep *evaluator.Report) bool {
	for _, c := range rep.Candidates {
		if c.Verdict != evaluator.VerdictFailed {
			return false
		}
	}
	return len(rep.Candidates) > 0
}

// jobPlan is what a job is about: the repository, the base commit and the
// candidates, resolved and loaded before anything is opened.
type jobPlan struct {
	repo  gitcmd.Repo
	base  string // 40 hex
	label string // how the base was named, for the header
	cands []candidate.Candidate

	artifacts string    // the artifacts' parent directory; "" is the repository's
	deadline  time.Time // benchmarking stops here; zero is none
}

// planJob finds the repository, resolves the base and loads the candidates
// that o names. It warns on stderr when the working tree has edits that the
// base does not hold.
func planJob(ctx context.Context, o runOptions, stderr io.Writer) (jobPlan, error) {
	r, err := gitcmd.FindRepo(ctx, o.Repo)
	if err != nil {
		return jobPlan{}, err
	}
	base, err := r.Resolve(ctx, o.Base)
	if err != nil {
		return jobPlan{}, err
	}
	warnDirty(ctx, r, o, base, stderr)
	cands, err := loadCandidates(ctx, r, base, o)
	if err != nil {
		return jobPlan{}, err
	}
	return jobPlan{repo: r, base: base, label: o.Base, cands: cands}, nil
}

// warnDirty says once, on stderr, that the working tree has uncommitted
// changes, which are not part of the base: candidates are compared against
// the base commit alone. A tree whose status cannot be read says nothing.
func warnDirty(ctx context.Context, r gitcmd.Repo, o runOptions, base string, stderr io.Writer) {
	own := watch.Rel(r.Root, append(append([]string{}, o.Candidates...), o.DB))
	files, err := watch.Dirty(ctx, r.Root, func(p string) bool { return watch.IsOwn(p, config.File, own) })
	if err != nil || len(files) == 0 {
		return
	}
	fmt.Fprintf(stderr, "optimizer: warning: the working tree has uncommitted changes (%s) that are not part of the base %s (%s): candidates are compared against that commit alone; commit them first, or use optimizer watch to evaluate them\n",
		report.ListSome(files, 3), o.Base, report.ShortHash(base))
}

// executeJob opens the store and the pool, evaluates plan's candidates, and
// hands the report to finish while the pool is still open. So the report is
// out before the slots are removed. finish's error is executeJob's.
func executeJob(ctx context.Context, o runOptions, plan jobPlan, stderr io.Writer, finish func(*evaluator.Report, error) error) error {
	r, base := plan.repo, plan.base
	m := machine.Read()
	n, why := machine.Slots(int(o.Parallel), len(plan.cands), o.Test, m)
	if o.ParallelFrom != "" {
		why = strings.Replace(why, "-j", "parallel-candidates in "+o.ParallelFrom, 1)
	}
	w, err := openWork(ctx, o, r, base, n, stderr, func() {
		fmt.Fprintf(stderr, "optimizer: %s against %s at %s, %s (%s)\n",
			report.Plural(len(plan.cands), "candidate"), plan.label, base[:12], report.Plural(n, "slot"), why)
	})
	if err != nil {
		return err
	}
	defer w.close()
	db, pool, logger := w.DB, w.Pool, w.logger

	opts, err := o.Options(r, base, n, plan.artifacts, plan.cands, logger)
	if err != nil {
		return err
	}
	opts.CPUs = m.CPUs
	opts.Deadline = plan.deadline
	return finish(evaluate(ctx, pool, db, opts, stderr, o.Verbose))
}

// jobWork is what a command that runs jobs holds open: the store and the
// pool (evaluator.Work), and the logger they share.
type jobWork struct {
	*evaluator.Work
	logger *slog.Logger
	close  func() // removes or keeps the slots, then closes the store
}

// openWork checks that --sandbox on can be had, and says what the job is
// (header). It opens the store and a pool of n slots at base
// (evaluator.OpenWork). run, ci, optimize and bench all open their work
// here.
func openWork(ctx context.Context, o runOptions, r gitcmd.Repo, base string, n int, stderr io.Writer, header func()) (*jobWork, error) {
	if o.Sandbox == string(evaluator.SandboxOn) {
		if err := proc.SandboxAvailable(); err != nil {
			return nil, fmt.Errorf("--sandbox on: %w; install it (apt-get install %s), or pass --sandbox auto to run unsandboxed with a warning",
				err, proc.SandboxPackage)
		}
	}
	header()
	warnOversubscribed(stderr, n, machine.Read().CPUs)
	logger := newLogger(o.Verbose, stderr)
	w, err := evaluator.OpenWork(ctx, r.StorePath(o.DB), movedAside(stderr), worktreepool.Options{
		Repo: r.Root, Base: base, Size: n, Keep: o.KeepSlots, Paranoid: o.ParanoidReset, Logger: logger,
	})
	if err != nil {
		return nil, dbHint(err)
	}
	return &jobWork{Work: w, logger: logger, close: func() {
		if err := w.Close(ctx); err != nil {
			fmt.Fprintf(stderr, "optimizer: %v\n", err)
		}
	}}, nil
}

// warnOversubscribed warns when there are more slots than CPUs: tests then
// share CPUs, and --timeout means less. The evaluator re-runs a test that
// times out alone before it fails its candidate.
func warnOversubscribed(w io.Writer, slots, cpus int) {
	if slots > cpus {
		fmt.Fprintf(w, "optimizer: warning: %d slots on %d CPUs: tests share CPUs, so --timeout means less; a test that times out is re-run alone before its candidate fails\n", slots, cpus)
	}
}

// loadCandidates reads every --candidates path and --candidate-ref
// (candidate.LoadAll).
func loadCandidates(ctx context.Context, r gitcmd.Repo, base string, o runOptions) ([]candidate.Candidate, error) {
	if len(o.Candidates) == 0 && len(o.CandidateRefs) == 0 {
		return nil, usageErrorf("no candidates: pass --candidates PATH or --candidate-ref REF")
	}
	if err := candidatePathsExist(o.Candidates); err != nil {
		return nil, err
	}
	return candidate.LoadAll(ctx, r.Root, base, o.Candidates, o.CandidateRefs)
}

// candidatePathsExist is a usage error naming the first of paths, as
// --candidates gave them, that does not exist.
func candidatePathsExist(paths []string) error {
	for _, p := range paths {
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return usageErrorf("--candidates %s: no such file or directory; pass a .patch, .diff or .jsonl file, or a directory of candidates", p)
		}
	}
	return nil
}

func newLogger(verbose bool, stderr io.Writer) *slog.Logger {
	if !verbose {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// evaluate runs the job while one goroutine owns the terminal.
func evaluate(ctx context.Context, pool evaluator.Pool, db *store.DB, opts evaluator.Options, stderr io.Writer, verbose bool) (*evaluator.Report, error) {
	return showingProgress(&opts, pool.Size(), stderr, verbose, func() (*evaluator.Report, error) { return evaluator.Run(ctx, pool, db, opts) })
}

// showingProgress runs job, which sends its events to opts.Events, while
// one goroutine owns the terminal and shows them (progress.While). The
// job runs on slots slots.
func showingProgress(opts *evaluator.Options, slots int, stderr io.Writer, verbose bool, job func() (*evaluator.Report, error)) (*evaluator.Report, error) {
	return progress.While(stderr, showBars(stderr, verbose), evaluator.NewETA(*opts, slots), func(events chan<- evaluator.Event) (*evaluator.Report, error) {
		opts.Events = events
		return job()
	})
}

// regressions is the --fail-on-regression gate: an error wrapping
// errRegression naming the report's regressions (Report.Regressions).
func regressions(rep *evaluator.Report) error {
	if names := rep.Regressions(); len(names) > 0 {
		return fmt.Errorf("%w: %s", errRegression, strings.Join(names, ", "))
	}
	return nil
}
