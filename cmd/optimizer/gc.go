package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/evaluator/proc"
	"github.com/optimizer-dev/optimizer/store"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// gcOptions are the flags of optimizer gc.
type gcOptions struct {
	storeOptions
	Kept bool
}

func newGCCmd(stdout io.Writer) *cobra.Command {
	var o gcOptions
	cmd := &cobra.Command{
		Use:   "gc",
		Short: "Reclaim the slots of runs that died and mark their jobs interrupted",
		Long: `Reclaim every slot whose owner's process is dead: kill what its processes
left running, remove it and git's record of it. Mark the running jobs of dead
processes interrupted, and remove their scratch directories. A
live optimizer's slots are left alone, and so are slots kept warm with
--keep-slots, unless --kept is given. The next run adopts orphaned and kept
slots on its own.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return gc(cmd.Context(), o, stdout)
		},
	}
	o.register(cmd.Flags())
	cmd.Flags().BoolVar(&o.Kept, "kept", false, "also remove the slots kept warm by --keep-slots")
	return cmd
}

// gc marks dead jobs interrupted and reclaims orphaned slots.
func gc(ctx context.Context, o gcOptions, w io.Writer) error {
	r, err := findRepo(ctx, o.Repo)
	if err != nil {
		return err
	}
	path := r.storePath(o.DB)
	if _, err := os.Stat(path); err == nil {
		db, err := store.Open(ctx, path)
		if err != nil {
			return fmt.Errorf("open store: %w", err)
		}
		n, err := db.MarkInterrupted(ctx, pidAlive)
		db.Close()
		if err != nil {
			return fmt.Errorf("mark dead jobs interrupted: %w", err)
		}
		fmt.Fprintf(w, "jobs marked interrupted: %d\n", n)
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if n := proc.KillOrphans(); n > 0 {
		fmt.Fprintf(w, "processes of dead runs killed: %d\n", n)
	}
	n, err := worktreepool.Reclaim(ctx, r.Root, "", o.Kept)
	if err != nil {
		return fmt.Errorf("reclaim slots: %w", err)
	}
	fmt.Fprintf(w, "slots reclaimed: %d\n", n)
	if n := evaluator.RemoveStaleScratch(pidAlive); n > 0 {
		fmt.Fprintf(w, "scratch directories of dead runs removed: %d\n", n)
	}
	return nil
}
