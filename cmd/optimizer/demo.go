package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/optimizer-dev/optimizer/cmd/optimizer/internal/config"
	"github.com/optimizer-dev/optimizer/cmd/optimizer/internal/demo"
	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/testdata"
)

// demoOptions are the flags of optimizer demo.
type demoOptions struct {
	Dir      string // where to write the repo and candidates; "" is a temp dir
	Keep     bool   // keep the directory afterwards
	Format   string
	Verbose  bool
	Optimize bool          // run the optimisation loop with the example generator instead
	Timeout  time.Duration // one test run's timeout; 0 is demo.Timeout
}

func newDemoCmd(stdout, stderr io.Writer) *cobra.Command {
	var o demoOptions
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the whole flow on an embedded example repository",
		Long: `Write a small Go module with a slow function to a temporary directory,
commit it, write six candidate changes to it (one for every verdict), and
evaluate them with two slots. Nothing outside that directory is touched.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Format != config.FormatText && o.Format != config.FormatJSON && o.Format != config.FormatMarkdown {
				return usageErrorf("--format %q: want text, json or markdown", o.Format)
			}
			if o.Optimize && o.Format == config.FormatMarkdown {
				return usageErrorf("demo --optimize prints text or json")
			}
			return runDemo(cmd.Context(), o, stdout, stderr)
		},
	}
	cmd.Flags().StringVar(&o.Dir, "dir", "", "write the demo repository and candidates here (default: a temporary directory)")
	cmd.Flags().BoolVar(&o.Keep, "keep", false, "keep the demo directory afterwards, to look around with history and show")
	cmd.Flags().StringVar(&o.Format, "format", config.FormatText, "report format: text, json or markdown")
	cmd.Flags().BoolVarP(&o.Verbose, "verbose", "v", false, "log what happens to stderr")
	cmd.Flags().DurationVar(&o.Timeout, "timeout", demo.Timeout, "bound one run of the tests; a tiny one shows what the demo says on a loaded machine")
	cmd.Flags().BoolVar(&o.Optimize, "optimize", false, "run the optimisation loop on the example, with the example generator, instead of the candidate set")
	return cmd
}

// runDemo writes the fixture repo and the demo candidates, then runs a job on
// them and prints its report.
func runDemo(ctx context.Context, o demoOptions, stdout, stderr io.Writer) error {
	d, err := demo.Write(ctx, o.Dir, o.Keep, !o.Optimize)
	if errors.Is(err, testdata.ErrExists) {
		return fmt.Errorf("%w: give --dir a new or empty directory", err)
	}
	if err != nil {
		return err
	}
	defer d.Remove()
	d.Timeout = o.Timeout
	intro := stdout
	if o.Format == config.FormatJSON {
		intro = stderr // stdout holds the JSON report and nothing else
	}
	if o.Optimize {
		d.WriteOptimizeIntro(intro)
		err = demoOptimize(ctx, o, d.Repo, stdout, stderr)
	} else {
		d.WriteIntro(intro)
		err = demoRun(ctx, o, d, stdout, stderr)
	}
	d.WriteOutro(intro)
	return err
}

// demoRun runs the demo's job on its candidates, with the demo's settings.
func demoRun(ctx context.Context, o demoOptions, d demo.Dir, stdout, stderr io.Writer) error {
	ro := defaultRunOptions()
	ro.Kind = "demo"
	ro.Repo = d.Repo
	ro.Candidates = []string{d.Candidates}
	ro.Parallel = demo.Parallel
	ro.Timeout = d.Timeout
	ro.BenchBudget = demo.Budget
	ro.MaxPairs = demo.MaxPairs
	ro.Format = o.Format
	ro.Verbose = o.Verbose
	plan, err := planJob(ctx, ro, stderr)
	if err != nil {
		return err
	}
	return executeJob(ctx, ro, plan, stderr, func(rep *evaluator.Report, err error) error {
		stopped := ""
		if rep != nil {
			stopped = "job " + rep.Job + " is recorded as interrupted"
		}
		if err := endRun(ctx, ro, rep, err, stdout, stopped); err != nil {
			return err
		}
		// The demo shows each verdict: one that differs is a failure,
		// said with its reason, not a success with a surprising table.
		return d.Check(rep)
	})
}

// demoOptimize runs the optimisation loop on the demo repository, with the
// example generator built into this program: a wrong rewrite first, its
// repair, then a refinement.
func demoOptimize(ctx context.Context, o demoOptions, repoDir string, stdout, stderr io.Writer) error {
	lo := defaultOptimizeOptions()
	lo.Kind = "demo"
	lo.Repo = repoDir
	lo.Targets = []string{"sumsq.SumSquares"}
	lo.Generate = []string{selfCommand() + " demo-generator"}
	lo.Parallel = demo.Parallel
	lo.Timeout = o.Timeout
	lo.BenchBudget = demo.Budget
	lo.MaxPairs = demo.MaxPairs
	lo.Format = o.Format
	lo.Verbose = o.Verbose
	return runOptimize(ctx, lo, stdout, stderr)
}
