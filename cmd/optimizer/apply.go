package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/evaluator/watch"
	"github.com/optimizer-dev/optimizer/report"
	"github.com/optimizer-dev/optimizer/store"
)

// applyOptions are the flags and arguments of optimizer apply.
type applyOptions struct {
	storeOptions
	Job       string // "" is the latest job
	Candidate string // "" is the job's winner
	Force     bool   // apply a candidate that failed or never finished
}

func newApplyCmd(stdout, stderr io.Writer) *cobra.Command {
	var o applyOptions
	cmd := &cobra.Command{
		Use:   "apply [JOB [CANDIDATE]]",
		Short: "Apply a job's winner, or a named candidate, to the working tree",
		Long: `Apply the winner of JOB, or the candidate named, to the working tree. JOB is
a job id or a unique prefix of one; without it, the latest job, as for show.
This is the only command that changes the working tree. It refuses when the
working tree has changes to the files the candidate changes; the index, refs
and stash are left alone. A candidate that failed, or never finished, is
applied only with --force.`,
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				o.Job = args[0]
			}
			if len(args) == 2 {
				o.Candidate = args[1]
			}
			return apply(cmd.Context(), o, stdout, stderr)
		},
	}
	o.register(cmd.Flags())
	cmd.Flags().BoolVar(&o.Force, "force", false, "apply a candidate whose verdict is failed or pending")
	return cmd
}

// apply writes a candidate's change, as the job kept it, into the user's
// working tree.
func apply(ctx context.Context, o applyOptions, stdout, stderr io.Writer) error {
	db, r, err := o.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	j, err := db.FindJob(ctx, o.Job)
	if err != nil {
		return err
	}
	name, err := chooseCandidate(ctx, db, j, o.Candidate, o.Force, stderr)
	if err != nil {
		return err
	}
	artifacts := evaluator.ArtifactsDir(j, r.ArtifactsDir())
	if _, err := os.Stat(filepath.Join(artifacts, j.ID)); j.Kind == "watch" && errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("job %s kept no candidate changes: its artifacts (%s) were removed, as watch keeps them only for evaluations with a winner and the last %d others",
			j.ID, filepath.Join(artifacts, j.ID), watch.DefaultKeptArtifacts)
	}
	c, err := evaluator.KeptChange(j, artifacts, name)
	if err != nil {
		return err
	}
	if err := evaluator.VerifyKept(ctx, db, j, r.Root, c); err != nil {
		return err
	}
	if err := evaluator.CheckClean(ctx, r.Root, c.Paths()); err != nil {
		return err
	}
	if head, err := r.Resolve(ctx, "HEAD"); err == nil && head != j.Base {
		fmt.Fprintf(stderr, "optimizer: note: HEAD is %s, the job's base was %s\n", report.ShortHash(head), report.ShortHash(j.Base))
	}
	if err := evaluator.ApplyToTree(ctx, r.Root, c); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "applied %s from job %s to %s: %s\n", name, j.ID, r.Root, strings.Join(c.Paths(), ", "))
	return nil
}

// chooseCandidate returns the named candidate, or the job's winner.
func chooseCandidate(ctx context.Context, db *store.DB, j store.Job, name string, force bool, stderr io.Writer) (string, error) {
	if name == "" {
		if j.Winner == "" {
			return "", fmt.Errorf("job %s has no winner: name the candidate to apply (see optimizer show %s)", j.ID, j.ID)
		}
		return j.Winner, nil
	}
	rows, err := db.Candidates(ctx, j.ID)
	if err != nil {
		return "", fmt.Errorf("read candidates of job %s: %w", j.ID, err)
	}
	for _, row := range rows {
		if row.Name != name {
			continue
		}
		if v := evaluator.Verdict(row.Verdict); v == evaluator.VerdictFailed || v == evaluator.VerdictPending {
			if !force {
				return "", fmt.Errorf("%s's verdict in job %s is %s: pass --force to apply it anyway", name, j.ID, v)
			}
			fmt.Fprintf(stderr, "optimizer: note: %s's verdict is %s\n", name, v)
		}
		return name, nil
	}
	return "", fmt.Errorf("job %s has no candidate %q", j.ID, name)
}
