package daemon

import (
	"context"
	"errors"
	"fmt"

	"github.com/optimizer-dev/optimizer/store"
)

// keepInterruptedRun renames the run a killed daemon left under the job's
// id in the repository's store to id~N (its attempt). Then the job runs
// again under its one id, and the interrupted run stays in the history.
func keepInterruptedRun(ctx context.Context, db *store.DB, id string) error {
	if ok, err := hasRun(ctx, db, id); !ok {
		return err
	}
	for n := 1; ; n++ {
		to := fmt.Sprintf("%s~%d", id, n)
		if ok, err := hasRun(ctx, db, to); err != nil {
			return err
		} else if !ok {
			return db.RenameJob(ctx, id, to)
		}
	}
}

// hasRun reports whether db holds a run with exactly this id.
func hasRun(ctx context.Context, db *store.DB, id string) (bool, error) {
	j, err := db.Job(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrAmbiguous):
		return false, nil
	case err != nil:
		return false, err
	}
	return j.ID == id, nil
}
