package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/optimizer-dev/optimizer/report"
	"github.com/optimizer-dev/optimizer/testdata"
)

// The demo's settings: two slots, a timeout short enough for the hanging
// candidate to fail quickly, and a benchmark budget that keeps the whole
// demo under a minute on two cores.
const (
	demoParallel = 2
	demoTimeout  = 15 * time.Second
	demoBudget   = 20 * time.Second
	demoMaxPairs = 12
)

// demoOptions are the flags of optimizer demo.
type demoOptions struct {
	Dir      string // where to write the repo and candidates; "" is a temp dir
	Keep     bool   // keep the directory afterwards
	Format   string
	Verbose  bool
	Optimize bool // run the optimisation loop with the example generator instead
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
			if o.Format != formatText && o.Format != formatJSON && o.Format != formatMarkdown {
				return usageErrorf("--format %q: want text, json or markdown", o.Format)
			}
			if o.Optimize && o.Format == formatMarkdown {
				return usageErrorf("demo --optimize prints text or json")
			}
			return demo(cmd.Context(), o, stdout, stderr)
		},
	}
	cmd.Flags().StringVar(&o.Dir, "dir", "", "write the demo repository and candidates here (default: a temporary directory)")
	cmd.Flags().BoolVar(&o.Keep, "keep", false, "keep the demo directory afterwards, to look around with history and show")
	cmd.Flags().StringVar(&o.Format, "format", formatText, "report format: text, json or markdown")
	cmd.Flags().BoolVarP(&o.Verbose, "verbose", "v", false, "log what happens to stderr")
	cmd.Flags().BoolVar(&o.Optimize, "optimize", false, "run the optimisation loop on the example, with the example generator, instead of the candidate set")
	return cmd
}

// demo writes the fixture repo and the demo candidates, then runs a job on
// them and prints its report.
func demo(ctx context.Context, o demoOptions, stdout, stderr io.Writer) error {
	dir := o.Dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "optimizer-demo-")
		if err != nil {
			return fmt.Errorf("make demo dir: %w", err)
		}
		dir = tmp
		if !o.Keep {
			defer os.RemoveAll(dir)
		}
	}
	d, err := testdata.WriteDemo(ctx, dir, !o.Optimize)
	if errors.Is(err, testdata.ErrExists) {
		return fmt.Errorf("%w: give --dir a new or empty directory", err)
	}
	if err != nil {
		return err
	}
	repoDir, candDir := d.Repo, d.Candidates
	if o.Optimize {
		return demoOptimize(ctx, o, repoDir, stdout, stderr)
	}

	intro := stdout
	if o.Format == formatJSON {
		intro = stderr // stdout holds the JSON report and nothing else
	}
	writeDemoIntro(intro, repoDir, candDir)

	ro := defaultRunOptions()
	ro.Kind = "demo"
	ro.Repo = repoDir
	ro.Candidates = []string{candDir}
	ro.Parallel = demoParallel
	ro.Timeout = demoTimeout
	ro.BenchBudget = demoBudget
	ro.MaxPairs = demoMaxPairs
	ro.Format = o.Format
	ro.Verbose = o.Verbose
	err = runJob(ctx, ro, stdout, stderr)
	writeDemoOutro(intro, dir, repoDir, o.Keep || o.Dir != "")
	return err
}

// writeDemoOutro says where the demo repository is kept, or that it is
// deleted now and how to keep it.
func writeDemoOutro(w io.Writer, dir, repoDir string, kept bool) {
	if kept {
		fmt.Fprintf(w, "\nThe demo repository is kept in %s. Look around with:\n  optimizer history --repo %s\n  optimizer show --repo %s\n", repoDir, repoDir, repoDir)
		return
	}
	fmt.Fprintf(w, "\nThe demo directory %s is deleted now. To keep it and look around with\nhistory, show and apply, run: optimizer demo --keep (or --dir DIR)\n", dir)
}

func writeDemoIntro(w io.Writer, repoDir, candDir string) {
	fmt.Fprintf(w, "optimizer demo: a Go module whose sumsq.SumSquares is slow (math.Pow, a []string, fmt and\n")
	fmt.Fprintf(w, "strconv round trips), committed in %s, and six candidate changes in %s:\n\n", repoDir, candDir)
	rows := [][]string{{"  CANDIDATE", "EXPECTED", "WHAT IT DOES"}}
	for _, c := range testdata.DemoCandidates {
		rows = append(rows, []string{"  " + c.Name, c.Verdict, c.About})
	}
	report.Columns(w, "", rows)
	fmt.Fprintf(w, "\nEach candidate's tests run in its own git worktree, two at a time, against the baseline's;\n")
	fmt.Fprintf(w, "hang is killed at the %s timeout. The correct ones are then benchmarked one at a time,\n", demoTimeout)
	fmt.Fprintf(w, "interleaved with base, and the winner is profiled. Progress goes to stderr.\n\n")
}

// demoOptimize runs the optimisation loop on the demo repository, with the
// example generator built into this program: a wrong rewrite first, its
// repair, then a refinement.
func demoOptimize(ctx context.Context, o demoOptions, repoDir string, stdout, stderr io.Writer) error {
	intro := stdout
	if o.Format == formatJSON {
		intro = stderr
	}
	fmt.Fprintf(intro, "optimizer demo --optimize: a Go module whose sumsq.SumSquares is slow, committed in %s.\n", repoDir)
	fmt.Fprintf(intro, "The example generator proposes a rewrite that skips the first element (a test fails), repairs\n")
	fmt.Fprintf(intro, "it when given the failure, then refines it; the winner is measured again at the end.\n\n")
	lo := defaultOptimizeOptions()
	lo.Kind = "demo"
	lo.Repo = repoDir
	lo.Targets = []string{"sumsq.SumSquares"}
	lo.Generate = []string{selfCommand() + " demo-generator"}
	lo.Parallel = demoParallel
	lo.Timeout = demoTimeout
	lo.BenchBudget = demoBudget
	lo.MaxPairs = demoMaxPairs
	lo.Format = o.Format
	lo.Verbose = o.Verbose
	err := runOptimize(ctx, lo, stdout, stderr)
	writeDemoOutro(intro, filepath.Dir(repoDir), repoDir, o.Keep || o.Dir != "")
	return err
}
