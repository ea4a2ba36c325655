package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/optimizer-dev/optimizer/proc"
	"github.com/optimizer-dev/optimizer/store"
)

// openStoreToRead opens the store for the commands that only read past jobs
// (history, show, report, apply, bench): store.OpenToRead.
func openStoreToRead(ctx context.Context, path string) (*store.DB, error) {
	db, err := store.OpenToRead(ctx, path, proc.Alive)
	return db, dbHint(err)
}

// dbHint says which flag names a store that is a directory.
func dbHint(err error) error {
	if errors.Is(err, store.ErrIsDirectory) {
		return fmt.Errorf("%w: --db names the store's file", err)
	}
	return err
}

// movedAside says on w that a corrupt store was moved aside.
func movedAside(w io.Writer) store.MovedAside {
	return func(path, aside string, cause error) {
		fmt.Fprintf(w, "optimizer: the store %s is corrupt (%v): moved it aside to %s; its jobs are there, and a new store starts empty\n",
			path, cause, aside)
	}
}
