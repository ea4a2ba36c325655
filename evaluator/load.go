package evaluator

import (
	"context"

	"github.com/optimizer-dev/optimizer/evaluator/stored"
	"github.com/optimizer-dev/optimizer/store"
)

// JobReport reads back the report of job j from db: as stored when it
// finished, else rebuilt from its candidates' rows (stored.JobReport).
func JobReport(ctx context.Context, db *store.DB, j store.Job) (*Report, error) {
	return stored.JobReport(ctx, db, j, DefaultMinSpeedup)
}
