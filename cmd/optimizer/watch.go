package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/optimizer-dev/optimizer/eta"

	"github.com/spf13/cobra"

	"github.com/optimizer-dev/optimizer/cmd/optimizer/internal/config"
	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/jobspec"
	"github.com/optimizer-dev/optimizer/machine"
	"github.com/optimizer-dev/optimizer/progress"
	"github.com/optimizer-dev/optimizer/report"
	"github.com/optimizer-dev/optimizer/watch"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// watchOptions are the flags of optimizer watch: those of run, less the
// ones that fix a base or a set of candidates, and the watcher's timing,
// which tests set.
type watchOptions struct {
	runOptions
	Quiet   time.Duration // trailing debounce; 0 is watch.DefaultQuiet
	MaxWait time.Duration // cap on one debounce; 0 is watch.DefaultMaxWait
	// machineLock is the pool's machine lock; "" is the machine's own.
	// Tests use a private one, so that other optimizers on the machine
	// don't hold them up.
	machineLock string
	// keptArtifacts is how many evaluations without a winner keep their
	// artifacts; 0 is watch.DefaultKeptArtifacts. Tests set fewer.
	keptArtifacts int
	// quickBudget is the benchmark budget of a save's first speed verdict;
	// 0 is watch.DefaultQuickBudget. Tests set less.
	quickBudget time.Duration
}

func newWatchCmd(stdout, stderr io.Writer) *cobra.Command {
	o := watchOptions{runOptions: defaultRunOptions()}
	o.Kind = "watch"
	cmd := &cobra.Command{
		Use:   "watch [flags]",
		Short: "Evaluate the working tree against HEAD every time a file is saved",
		Long: `Watch the working tree and, after every settled burst of saves, evaluate its
difference from HEAD (tracked edits, deletions and untracked files that git
does not ignore) as a candidate: tests, then benchmarks, as optimizer run does.
A new save cancels the evaluation in flight. In a Go module, only the packages
the change affects are tested and benchmarked (--all for every package).
Candidates saved in a --candidates DIR are evaluated on their own, against HEAD.
optimizer.toml, .optimizer*, the --candidates folder and editors' temporary
files (sed -i's sedXXXXXX, swap and backup files) are ignored.

The test verdict is printed as soon as the tests pass ("measuring speed…"),
then a quick speed verdict (a 15 s budget); when that does not settle and
no newer save comes, the same save is measured again with the whole
--bench-budget, and said as "refined:".

One line per evaluation on stdout; -v adds progress and the full report;
--format json prints one JSON object per line. Every evaluation is a job in
the store (kind watch). Ctrl-C stops, exiting 0. See docs/watch.md.`,
		Example: `  optimizer watch
  optimizer watch --test "make check" --bench none
  optimizer watch --candidates ./candidates --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.configure(cmd.Context(), cmd); err != nil {
				return err
			}
			return runWatch(cmd.Context(), o, stdout, stderr)
		},
	}
	o.register(cmd.Flags())
	o.registerDaemon(cmd.Flags())
	config.RegisterForWatch(cmd.Flags())
	return cmd
}

// configure merges optimizer.toml under the flags, like run's, then drops
// what watch refuses and validates the rest (config.ForWatch).
func (o *watchOptions) configure(ctx context.Context, cmd *cobra.Command) error {
	if err := config.RefuseForWatch(cmd.Flags().Changed); err != nil {
		return &usageError{err}
	}
	formatGiven := cmd.Flags().Changed("format")
	if err := o.runOptions.configure(ctx, cmd); err != nil {
		return err
	}
	if err := o.ForWatch(formatGiven); err != nil {
		return &usageError{err}
	}
	return nil
}

// runWatch is optimizer watch: it evaluates the working tree once if it
// differs from HEAD, then again after every settled save, until ctx is
// done. Cancellation is the normal way to stop: it returns nil then, after
// cancelling the evaluation in flight and closing the pool. The session
// itself is watch.Session; this wires it to the flags and the terminal.
func runWatch(ctx context.Context, o watchOptions, stdout, stderr io.Writer) (err error) {
	if err := candidatePathsExist(o.Candidates); err != nil {
		return err
	}
	r, err := gitcmd.FindRepo(ctx, o.Repo)
	if err != nil {
		return err
	}
	s, err := watch.NewSession(ctx, r)
	if err != nil {
		return err
	}
	o.Kind = "watch"
	n, why := machine.Slots(int(o.Parallel), 1, o.Test, machine.Read())
	if o.Parallel > 0 {
		n, why = int(o.Parallel), "-j"
	}
	for _, p := range o.Candidates {
		abs, err := filepath.Abs(p)
		if err == nil {
			abs, err = filepath.EvalSymlinks(abs)
		}
		if err != nil {
			return fmt.Errorf("find --candidates %s: %w", p, err)
		}
		s.Extra = append(s.Extra, abs)
	}
	scr := &progress.Screen{Out: stdout, Err: stderr, JSON: o.Format == config.FormatJSON, Verbose: o.Verbose, TTY: !o.Verbose && isTerminal(stderr)}
	log := newLogger(o.Verbose, stderr)

	// In this process, the session holds the pool and the store on n
	// slots. Through a daemon, the daemon does, and chooses the slots
	// unless -j says; the job's start event gives them to the ETA.
	where, etaSlots := fmt.Sprintf(", %s (%s)", report.Plural(n, "slot"), why), n
	if c := o.onDaemon(ctx); c != nil {
		sess := c.NewSession()
		s.Evaluate = func(ctx context.Context, j watch.Job) (*evaluator.Report, error) {
			return sess.Evaluate(ctx, r.Root, j.Head, o.watchSpec(j), j.Cands, j.Events)
		}
		where, etaSlots = ", on the daemon", 0
		defer scr.Clear()
	} else {
		work, werr := evaluator.OpenWork(ctx, r.StorePath(o.DB), movedAside(stderr), worktreepool.Options{
			Repo: r.Root, Base: s.Head, Size: n, Keep: o.KeepSlots, Paranoid: o.ParanoidReset, MachineLock: o.machineLock, Logger: log,
		})
		if werr != nil {
			return dbHint(werr)
		}
		defer func() {
			scr.Clear()
			if cerr := work.Close(ctx); err == nil {
				err = cerr
			}
		}()
		s.Pool, s.DB = work.Pool, work.DB
		s.Skip = append(s.Skip, work.Pool.Dir())
	}
	s.Own = s.OwnFiles(config.File, o.DB) // a store given with --db, the candidates folders, the slots, optimizer's folder
	s.Options = func(j watch.Job) (evaluator.Options, error) {
		return o.jobOptions(j).Options(r, j.Head, n, "", j.Cands, log)
	}
	s.Test, s.All, s.BenchBudget, s.QuickBudget, s.KeptArtifacts = o.Test, o.All, o.BenchBudget, o.quickBudget, o.keptArtifacts
	s.Quiet, s.MaxWait, s.Logger = o.Quiet, o.MaxWait, log
	s.Ready = func() {
		fmt.Fprintf(stderr, "optimizer: watching %s at HEAD %s%s; Ctrl-C to stop\n",
			s.Root, report.ShortHash(s.Head), where)
	}
	scr.Show(s, func(w *watch.Work) *eta.ETA {
		// The limits the work's job will have, with the defaults the job
		// fills in (its own head and test scope do not change them).
		spec := o.jobOptions(watch.Job{Budget: w.Budget()}).Spec(n, nil)
		spec.Quick = w.Budget() != 0
		return evaluator.NewETA(evaluator.OptionsOf(spec), etaSlots)
	})
	if err := s.Run(ctx); err != nil {
		return err
	}
	fmt.Fprintln(stderr, "optimizer: stopped")
	return nil
}

// jobOptions are the flags of the session's job j: its test command, and
// its benchmark budget unless that is 0, the configured one.
func (o watchOptions) jobOptions(j watch.Job) runOptions {
	ro := o.runOptions
	ro.Test = j.Test
	if j.Budget > 0 {
		ro.BenchBudget = j.Budget
	}
	return ro
}

// watchSpec is the spec of the session's job j on a daemon: its flags'
// (jobOptions) as run sends them (daemonSpec), and its quick look.
func (o watchOptions) watchSpec(j watch.Job) jobspec.Spec {
	spec := o.jobOptions(j).daemonSpec(len(j.Cands))
	spec.Quick = j.Quick
	return spec
}
