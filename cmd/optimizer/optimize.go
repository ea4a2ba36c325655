package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/optimizer-dev/optimizer/cmd/optimizer/internal/config"
	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/jobspec"
	"github.com/optimizer-dev/optimizer/machine"
	"github.com/optimizer-dev/optimizer/optimize"
	"github.com/optimizer-dev/optimizer/report"
	"github.com/optimizer-dev/optimizer/testdata"
)

// optimizeOptions are the flags of optimizer optimize: run's, for testing
// and measuring, plus the loop's own.
type optimizeOptions struct {
	runOptions
	config.Loop
}

func defaultOptimizeOptions() optimizeOptions {
	o := optimizeOptions{runOptions: defaultRunOptions(), Loop: config.LoopDefaults()}
	o.Kind = "optimize"
	return o
}

func newOptimizeCmd(stdout, stderr io.Writer) *cobra.Command {
	o := defaultOptimizeOptions()
	cmd := &cobra.Command{
		Use:   "optimize [flags]",
		Short: "Run the optimisation loop: generators propose, optimizer judges, failures go back for repair",
		Long: `optimizer optimize asks generators (LLM agents, scripted rewriters) for faster
versions of the target functions, judges every round's candidates as a job,
sends failures back for repair and the best back for refinement, and
re-measures the final winner in a longer series. See docs/generators.md for
the request a generator reads and what it prints.

Without --target, the targets are the hottest functions of the repository in
a CPU profile of the base's benchmarks.

By default, when at least 4 benchmarks execute the targets, a quarter of them
(--holdout) are held out: generators never see them, rounds do not measure
them, and the re-measure judges the best on them too. A best faster on the
shown benchmarks and not on the held-out ones is reported overfit, not winner.`,
		Example: `  optimizer optimize --target sumsq.SumSquares --generate './my-generator'
  optimizer optimize --generate-edit 'claude -p "$(cat $OPTIMIZER_REQUEST)"' --rounds 4 --budget 30m`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.configure(cmd.Context(), cmd); err != nil {
				return err
			}
			if err := o.Loop.Validate(o.Run); err != nil {
				return &usageError{err}
			}
			return runOptimize(cmd.Context(), o, stdout, stderr)
		},
	}
	fs := cmd.Flags()
	o.register(fs)
	o.Loop.Register(fs)
	return cmd
}

// runOptimize is optimizer optimize: open the store and the pool, find the
// targets, run the loop, print its report.
func runOptimize(ctx context.Context, o optimizeOptions, stdout, stderr io.Writer) error {
	r, err := gitcmd.FindRepo(ctx, o.Repo)
	if err != nil {
		return err
	}
	base, err := r.Resolve(ctx, o.Base)
	if err != nil {
		return err
	}
	var targets []optimize.Target
	if len(o.Targets) > 0 { // before anything is opened: a wrong name is a usage error
		if targets, err = optimize.ResolveTargets(ctx, r.Root, base, o.Targets); err != nil {
			return usageErrorf("%w", err)
		}
	}
	n, why := machine.Slots(int(o.Parallel), max(2, len(o.Generate)+len(o.GenerateEdit)), o.Test, machine.Read())
	w, err := openWork(ctx, o.runOptions, r, base, n, stderr, func() {
		fmt.Fprintf(stderr, "optimizer optimize: against %s at %s, %s (%s)\n", o.Base, base[:12], report.Plural(n, "slot"), why)
	})
	if err != nil {
		return err
	}
	defer w.close()
	db, pool, logger := w.DB, w.Pool, w.logger

	progress := optimize.PrintProgress(stderr)
	say := func(msg string) { progress(0, msg) }
	if targets, err = optimize.FindTargets(ctx, pool, r.Root, base, o.BenchFilter, o.HotTargets, targets, say); err != nil {
		return err
	}
	holdout, holdoutMin, _ := o.HoldoutShare() // checked by Validate
	loop := &optimize.Loop{
		Holdout: holdout, HoldoutMin: holdoutMin, HoldoutSeed: o.HoldoutSeed,
		Repo: r.Root, Base: base, Targets: targets, Rounds: o.Rounds, PerRound: o.PerRound, Repairs: o.Repairs,
		Budget: o.Budget, Parallel: n, Spec: o.Spec(n, os.Environ()), Options: o.loopOptions(r, base, n, logger), Pool: pool, DB: db, Logger: logger,
		Evaluate: func(ctx context.Context, opts evaluator.Options) (*evaluator.Report, error) {
			return evaluate(ctx, pool, db, opts, stderr, o.Verbose)
		},
		Progress:   progress,
		Generators: optimize.Generators(o.Generate, o.GenerateEdit, o.GenTimeout),
	}
	rep, err := loop.Run(ctx)
	if rep != nil {
		write := rep.WriteText
		if o.Format == config.FormatJSON {
			write = rep.WriteJSON
		}
		if werr := write(stdout); err == nil {
			err = werr
		}
	}
	switch {
	case ctx.Err() != nil:
		return errInterrupted
	case err != nil:
		return fmt.Errorf("optimize: %w", err)
	}
	return nil
}

// loopOptions makes the options of a loop's job from its spec: run's, with
// the machine's CPU count as executeJob sets it.
func (o optimizeOptions) loopOptions(r gitcmd.Repo, base string, n int, logger *slog.Logger) func(jobspec.Spec) (evaluator.Options, error) {
	return func(spec jobspec.Spec) (evaluator.Options, error) {
		opts, err := o.OptionsFor(spec, r, base, n, "", nil, logger)
		opts.CPUs = machine.Read().CPUs
		return opts, err
	}
}

// newDemoGeneratorCmd is the example generator, built in so that
// `optimizer demo --optimize` needs nothing else: it reads a request on
// stdin and prints one candidate (testdata.ExampleGenerator).
func newDemoGeneratorCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:    "demo-generator",
		Short:  "The example generator of the optimisation loop, for the demo's fixture",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return testdata.ExampleGenerator(cmd.InOrStdin(), stdout)
		},
	}
}

// selfCommand is a shell word that runs this program again: the path it was
// started by, made absolute.
func selfCommand() string {
	self := os.Args[0]
	if !strings.Contains(self, "/") {
		if p, err := exec.LookPath(self); err == nil {
			self = p
		}
	}
	if abs, err := filepath.Abs(self); err == nil {
		self = abs
	}
	return "'" + strings.ReplaceAll(self, "'", `'\''`) + "'"
}
