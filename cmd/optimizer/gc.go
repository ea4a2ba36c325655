package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/spf13/cobra"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/proc"
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

// gc reclaims orphaned slots, then marks dead jobs interrupted. Slots come
// first and need no store, so that a store that cannot be opened does not
// leave them behind; a corrupt store is moved aside, never deleted.
func gc(ctx context.Context, o gcOptions, w io.Writer) error {
	r, err := gitcmd.FindRepo(ctx, o.Repo)
	if err != nil {
		return err
	}
	if n := proc.KillOrphans(); n > 0 {
		fmt.Fprintf(w, "processes of dead runs killed: %d\n", n)
	}
	n, rerr := worktreepool.Reclaim(ctx, r.Root, "", o.Kept)
	if rerr != nil {
		rerr = fmt.Errorf("reclaim slots: %w", rerr)
	} else {
		fmt.Fprintf(w, "slots reclaimed: %d\n", n)
	}
	if n := evaluator.RemoveStaleScratch(proc.Exists); n > 0 {
		fmt.Fprintf(w, "scratch directories of dead runs removed: %d\n", n)
	}
	return errors.Join(rerr, gcStore(ctx, r.StorePath(o.DB), w))
}

// gcStore marks the running jobs of dead processes interrupted, if there is
// a store; a corrupt one is moved aside.
func gcStore(ctx context.Context, path string, w io.Writer) error {
	moved := false
	n, err := store.MarkDead(ctx, path, proc.Alive, func(path, aside string, cause error) {
		moved = true
		movedAside(w)(path, aside, cause)
	})
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err == nil && !moved:
		fmt.Fprintf(w, "jobs marked interrupted: %d\n", n)
	}
	return err
}
