package main

import (
	"errors"
	"io"
	"io/fs"

	"github.com/spf13/cobra"

	"github.com/optimizer-dev/optimizer/report"
	"github.com/optimizer-dev/optimizer/shard"
)

// newMergeCmd builds optimizer merge: shard stores into one.
func newMergeCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "merge OUT.db IN.db...",
		Short: "Merge the stores of a job's shards (run --shard K/N) into one, for optimizer bench",
		Long: `Merge the stores that optimizer run --shard K/N --db IN.db wrote into OUT.db
(made if missing): one job, every candidate once, with the outcome, test
results and events of the shard that judged it. Stores of different jobs
(another base, test command, shard count or candidate set) are refused, as is
a candidate judged differently by two stores: then OUT.db is left as it was.
Merging a store again changes nothing, so shards can be merged as they come.
Shards not merged yet are listed. Then: optimizer bench --db OUT.db.

Exit status: 0 merged, 1 conflicting outcomes or a store that cannot be
written, 2 bad arguments (a missing file, not a shard store, different jobs).`,
		Example: `  optimizer merge all.db shard-1.db shard-2.db shard-3.db`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) < 2 {
				return usageErrorf("merge takes the output store and at least one shard store: optimizer merge OUT.db IN.db...")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := shard.Merge(cmd.Context(), args[0], args[1:])
			switch {
			case errors.Is(err, fs.ErrNotExist), errors.Is(err, shard.ErrNotShardStore), errors.Is(err, shard.ErrDifferentJobs):
				return &usageError{err}
			case err != nil:
				return err
			}
			report.Merge(stdout, args[0], res)
			return nil
		},
	}
}
