package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/report"
	"github.com/optimizer-dev/optimizer/shard"
	"github.com/optimizer-dev/optimizer/store"
)

// newBenchCmd builds optimizer bench: phase 2 and the profile of a merged
// store's job, on this machine.
func newBenchCmd(stdout, stderr io.Writer) *cobra.Command {
	o := defaultRunOptions()
	var jobID string
	cmd := &cobra.Command{
		Use:   "bench --db OUT.db [flags]",
		Short: "Benchmark, on this machine, the candidates that passed in a merged store's shards",
		Long: `Benchmark, on this one machine, every candidate whose tests passed in the shards
that optimizer merge combined into --db, select the winner, profile it, and
finish the job's report in that store. Every sample records this host, and a
job whose samples came from another host is refused: a pair split across
hosts measures the hosts, not the code. The repository (--repo) must hold
the job's base commit. The benchmark flags are run's.`,
		Example: `  optimizer merge all.db shard-*.db && optimizer bench --db all.db --format markdown`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.configure(cmd.Context(), cmd); err != nil {
				return err
			}
			return benchJob(cmd.Context(), o, jobID, stdout, stderr)
		},
	}
	o.register(cmd.Flags())
	cmd.Flags().StringVar(&jobID, "job", "", "the job to benchmark (default: the store's one merged job)")
	return cmd
}

// benchJob is optimizer bench.
func benchJob(ctx context.Context, o runOptions, jobID string, stdout, stderr io.Writer) error {
	if o.DB == "" {
		return usageErrorf("bench needs --db FILE: the store optimizer merge wrote")
	}
	if _, err := os.Stat(o.DB); err != nil {
		return usageErrorf("--db %s: %w", o.DB, err)
	}
	r, err := gitcmd.FindRepo(ctx, o.Repo)
	if err != nil {
		return err
	}
	path := r.StorePath(o.DB)
	db, err := openStoreToRead(ctx, path)
	if err != nil {
		return err
	}
	job, err := shard.Job(ctx, db, path, jobID)
	db.Close()
	if errors.Is(err, shard.ErrNoJob) {
		return &usageError{err}
	}
	if err != nil {
		return err
	}
	if _, err := r.Resolve(ctx, job.Base); err != nil {
		return fmt.Errorf("job %s's base %s is not in the repository %s (fetch it): %w", job.ID, job.Base[:12], r.Root, err)
	}
	w, err := openWork(ctx, o, r, job.Base, 1, stderr, func() {
		fmt.Fprintf(stderr, "optimizer: benchmarking job %s (shards %s) against %s\n", job.ID, job.Shards, job.Base[:12])
	})
	if err != nil {
		return err
	}
	defer w.close()
	opts, err := o.Options(r, job.Base, 1, "", nil, w.logger)
	if err != nil {
		return err
	}
	rep, err := showingProgress(&opts, w.Pool.Size(), stderr, o.Verbose, func() (*evaluator.Report, error) {
		return evaluator.Bench(ctx, w.Pool, w.DB, job.ID, opts)
	})
	if rep != nil {
		if werr := report.Write(stdout, rep, o.Format); werr != nil && err == nil {
			err = werr
		}
	}
	var he *store.HostError
	switch {
	case ctx.Err() != nil:
		return errInterrupted
	case errors.Is(err, evaluator.ErrUnjudged), errors.As(err, &he):
		return &usageError{err}
	case err != nil:
		return fmt.Errorf("benchmark: %w", err)
	case o.FailOnRegr:
		return regressions(rep)
	}
	return nil
}
