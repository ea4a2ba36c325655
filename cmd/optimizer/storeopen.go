package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/optimizer-dev/optimizer/proc"
	"github.com/optimizer-dev/optimizer/store"
)

// openStore opens the store and marks the running jobs of dead processes
// interrupted.
func openStore(ctx context.Context, path string) (*store.DB, error) {
	db, err := store.Open(ctx, path)
	if errors.Is(err, store.ErrIsDirectory) {
		return nil, fmt.Errorf("open store: %w: --db names the store's file", err)
	}
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	if _, err := db.MarkInterrupted(ctx, proc.Alive); err != nil {
		db.Close()
		return nil, fmt.Errorf("mark dead jobs interrupted: %w", err)
	}
	return db, nil
}

// openStoreToRead is openStore for the commands that only read past jobs
// (history, show, report, apply): a store that cannot be opened for writing
// (on a read-only file system, say) is read as it is, without marking dead
// jobs interrupted.
func openStoreToRead(ctx context.Context, path string) (*store.DB, error) {
	db, err := openStore(ctx, path)
	if err == nil || store.IsCorrupt(err) || errors.Is(err, store.ErrIsDirectory) {
		return db, err
	}
	if ro, rerr := store.OpenReadOnly(ctx, path); rerr == nil {
		return ro, nil
	}
	return nil, err
}

// openStoreForJob is openStore for the commands that write jobs (run,
// watch): a corrupt store is moved aside, never deleted, with a message on
// w, and a new one is made in its place, so that a damaged file (a kill -9
// mid-write on a file system that lies about syncs, a stray write) does not
// stop every job after it.
func openStoreForJob(ctx context.Context, path string, w io.Writer) (*store.DB, error) {
	db, err := openStore(ctx, path)
	if err == nil || !store.IsCorrupt(err) {
		return db, err
	}
	if err := moveAside(path, err, w); err != nil {
		return nil, err
	}
	return openStore(ctx, path)
}

// moveAside moves the corrupt store at path aside and says so on w.
func moveAside(path string, cause error, w io.Writer) error {
	aside, err := store.MoveAside(path)
	if err != nil {
		return fmt.Errorf("%w; and it could not be moved aside: %w", cause, err)
	}
	fmt.Fprintf(w, "optimizer: the store %s is corrupt (%v): moved it aside to %s; its jobs are there, and a new store starts empty\n",
		path, errors.Unwrap(cause), aside)
	return nil
}
