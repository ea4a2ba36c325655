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

	"github.com/optimizer-dev/optimizer/cmd/optimizer/internal/config"
	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/premerge"
	"github.com/optimizer-dev/optimizer/report"
)

// ciOptions are the flags of optimizer ci: run's, plus the pull request's
// sides when no CI variables say them, the gate, the output directory and
// the job's time budget.
type ciOptions struct {
	runOptions
	config.CI
}

func newCICmd(stdout, stderr io.Writer) *cobra.Command {
	o := ciOptions{runOptions: defaultRunOptions(), CI: config.CIDefaults()}
	o.Kind = "ci"
	o.Base = ""
	// A pull request's test edits are reviewed by people, and the comment
	// lists them: its head is judged with its own tests unless told not to.
	o.TrustTests = true
	cmd := &cobra.Command{
		Use:   "ci [flags]",
		Short: "Judge a pull request in CI: its head against the merge base, with a gate and a PR comment",
		Long: `optimizer ci finds a pull request's base and head in the CI job's environment
(GitHub Actions, then GitLab CI), evaluates the head as a candidate against
the merge base on this machine (plus any --candidates), and writes:

  <out>/comment.md     the Markdown for a sticky PR comment
  <out>/report.md      the full Markdown report
  <out>/report.json    the JSON report
  <out>/optimizer.db   the store (unless --db), with every raw sample
  <out>/artifacts/     the profiles
  $GITHUB_STEP_SUMMARY the comment, appended, on GitHub Actions

Exit status: 0 the gate passed; 1 error; 2 usage; 3 the performance gate
failed (--fail-on); 4 the head itself failed: its patch does not apply, it
does not build, its tests fail or time out, or its benchmarks error.`,
		Example: `  optimizer ci                                   # in a pull_request job
  optimizer ci --fail-on regression,allocs --budget 20m
  optimizer ci --base main --head my-branch      # anywhere, by hand`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.configure(cmd.Context(), cmd); err != nil {
				return err
			}
			if err := o.CI.Validate(); err != nil {
				return &usageError{err}
			}
			return runCI(cmd.Context(), o, os.Getenv, stdout, stderr)
		},
	}
	fs := cmd.Flags()
	o.register(fs)
	o.CI.Register(fs)
	return cmd
}

// runCI is optimizer ci. getenv reads the CI's variables.
func runCI(ctx context.Context, o ciOptions, getenv func(string) string, stdout, stderr io.Writer) error {
	start := time.Now()
	if err := candidatePathsExist(o.Candidates); err != nil {
		return err
	}
	job, err := premerge.Prepare(ctx, getenv, o.Repo, o.Base, o.Head, o.Candidates)
	var de *premerge.DetectError
	if errors.As(err, &de) {
		return &usageError{err}
	}
	if err != nil {
		return err
	}
	plan := jobPlan{repo: job.Repo, base: job.MergeBase, label: "the merge base", cands: job.Candidates}
	out, err := filepath.Abs(o.Out)
	if err == nil {
		err = os.MkdirAll(out, 0o755)
	}
	if err != nil {
		return fmt.Errorf("make --out %s: %w", o.Out, err)
	}
	plan.artifacts = filepath.Join(out, "artifacts")
	run := o.runOptions
	if run.DB == "" {
		run.DB = filepath.Join(out, "optimizer.db")
	}
	if o.Budget > 0 {
		plan.deadline = start.Add(o.Budget)
	}
	fmt.Fprintf(stderr, "optimizer ci: %shead %s (%s) against the merge base %s of %s\n",
		job.PR.Label(), report.ShortHash(job.Head), job.Candidates[0].Name, report.ShortHash(job.MergeBase), job.PR.BaseName())

	return executeJob(ctx, run, plan, stderr, func(rep *evaluator.Report, err error) error {
		if rep == nil {
			if err == nil {
				err = errors.New("no report")
			}
			return fmt.Errorf("evaluate: %w", err)
		}
		g, werr := job.Publish(out, rep, o.FailOn)
		if werr == nil {
			werr = report.Write(stdout, rep, o.Format)
		}
		if werr != nil && err == nil {
			err = werr
		}
		switch {
		case ctx.Err() != nil:
			return fmt.Errorf("%w: job %s is recorded as interrupted", errInterrupted, rep.Job)
		case err != nil:
			return fmt.Errorf("evaluate: %w", err)
		}
		if g.Passed() {
			fmt.Fprintf(stderr, "optimizer ci: %s\n", g.Line())
		}
		return gateErr(g) // run prints it
	})
}
