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

	"github.com/optimizer-dev/optimizer/evaluator/apply"
	"github.com/optimizer-dev/optimizer/report"
	"github.com/optimizer-dev/optimizer/watch"
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
			return runApply(cmd.Context(), o, stdout, stderr)
		},
	}
	o.register(cmd.Flags())
	cmd.Flags().BoolVar(&o.Force, "force", false, "apply a candidate whose verdict is failed or pending")
	return cmd
}

// runApply writes a candidate's change, as the job kept it, into the user's
// working tree.
func runApply(ctx context.Context, o applyOptions, stdout, stderr io.Writer) error {
	db, r, err := o.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	j, err := db.FindJob(ctx, o.Job)
	if err != nil {
		return err
	}
	name, note, err := apply.ChooseCandidate(ctx, db, j, o.Candidate, o.Force)
	if err != nil {
		return err
	}
	if note != "" {
		fmt.Fprintf(stderr, "optimizer: note: %s\n", note)
	}
	artifacts := apply.ArtifactsDir(j, r.ArtifactsDir())
	if _, err := os.Stat(filepath.Join(artifacts, j.ID)); j.Kind == "watch" && errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("job %s kept no candidate changes: its artifacts (%s) were removed, as watch keeps them only for evaluations with a winner and the last %d others",
			j.ID, filepath.Join(artifacts, j.ID), watch.DefaultKeptArtifacts)
	}
	c, err := apply.KeptChange(j, artifacts, name)
	if err != nil {
		return err
	}
	if err := apply.VerifyKept(ctx, db, j, r.Root, c); err != nil {
		return err
	}
	if err := apply.CheckClean(ctx, r.Root, c.Paths()); err != nil {
		return err
	}
	if head, err := r.Resolve(ctx, "HEAD"); err == nil && head != j.Base {
		fmt.Fprintf(stderr, "optimizer: note: HEAD is %s, the job's base was %s\n", report.ShortHash(head), report.ShortHash(j.Base))
	}
	if err := apply.ToTree(ctx, r.Root, c); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "applied %s from job %s to %s: %s\n", name, j.ID, r.Root, strings.Join(c.Paths(), ", "))
	return nil
}
