package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/optimizer-dev/optimizer/report"
	"github.com/optimizer-dev/optimizer/store"
	"github.com/spf13/cobra"
)

// historyOptions are the flags of optimizer history.
type historyOptions struct {
	storeOptions
	Limit int
}

func newHistoryCmd(stdout io.Writer) *cobra.Command {
	var o historyOptions
	cmd := &cobra.Command{
		Use:   "history",
		Short: "List past jobs, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return history(cmd.Context(), o, stdout)
		},
	}
	o.register(cmd.Flags())
	cmd.Flags().IntVarP(&o.Limit, "limit", "n", 20, "most jobs to list")
	return cmd
}

// history prints a table of past jobs (report.History).
func history(ctx context.Context, o historyOptions, w io.Writer) error {
	db, _, err := o.open(ctx)
	if errors.Is(err, store.ErrNoJobs) {
		report.History(w, nil, nil)
		if msg := err.Error(); strings.Contains(msg, "optimizer ci keeps") {
			fmt.Fprintf(w, "%s\n", msg[strings.Index(msg, "optimizer ci keeps"):])
		}
		return nil
	}
	if err != nil {
		return err
	}
	defer db.Close()
	jobs, err := db.Jobs(ctx, o.Limit)
	if err != nil {
		return fmt.Errorf("list jobs: %w", err)
	}
	cands := make([]int, len(jobs))
	for i, j := range jobs {
		rows, err := db.Candidates(ctx, j.ID)
		if err != nil {
			return fmt.Errorf("read candidates of job %s: %w", j.ID, err)
		}
		cands[i] = len(rows)
	}
	report.History(w, jobs, cands)
	return nil
}
