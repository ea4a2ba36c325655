package evaluator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/optimizer-dev/optimizer/proc"
	"github.com/optimizer-dev/optimizer/store"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// CloseTimeout bounds Work.Close: removing the slots after a job, cancelled
// or not.
const CloseTimeout = 2 * time.Minute

// Work is what a process that runs jobs itself holds open: the store the
// jobs are recorded in and the pool of slots they run in. OpenWork opens
// both; the caller closes them with Close, once.
type Work struct {
	DB   *store.DB
	Pool *worktreepool.Pool
}

// OpenWork opens the store at storePath for jobs (store.OpenForJob: a
// corrupt one is moved aside and moved is told). It kills what dead runs of
// the optimizer left (their processes and scratch directories), and opens
// the pool of slots. When the pool cannot be opened, the store is closed
// again.
func OpenWork(ctx context.Context, storePath string, moved store.MovedAside, pool worktreepool.Options) (*Work, error) {
	db, err := store.OpenForJob(ctx, storePath, proc.Alive, moved)
	if err != nil {
		return nil, err
	}
	proc.KillOrphans()
	RemoveStaleScratch(proc.Exists)
	p, err := worktreepool.Open(ctx, pool)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open slot pool: %w", err)
	}
	return &Work{DB: db, Pool: p}, nil
}

// Close removes the slots (or keeps them warm, with the pool's Keep), then
// closes the store. It takes up to CloseTimeout even when ctx is done, so
// that a cancelled job still cleans up.
func (w *Work) Close(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), CloseTimeout)
	defer cancel()
	var errs []error
	if err := w.Pool.Close(cctx); err != nil {
		errs = append(errs, fmt.Errorf("close slot pool: %w", err))
	}
	if err := w.DB.Close(); err != nil {
		errs = append(errs, fmt.Errorf("close store: %w", err))
	}
	return errors.Join(errs...)
}
