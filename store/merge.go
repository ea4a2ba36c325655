package store

import (
	"context"
	"database/sql"
	"fmt"
)

// A Merge is what merging shard stores writes into one store, in one
// transaction (see package shard).
type Merge struct {
	// Job is inserted when the store has no job of its ID; otherwise only
	// its Shards are set on the stored one.
	Job Job
	// Candidates replace the job's rows of the same names, or are added.
	Candidates []Candidate
	// TestResults and Events are added.
	TestResults []TestResult
	Events      []Event
}

// WriteMerge writes m in one transaction: a failure leaves the store as it
// was.
func (db *DB) WriteMerge(ctx context.Context, m Merge) error {
	err := db.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE jobs SET shards = ? WHERE id = ?`, m.Job.Shards, m.Job.ID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			_, err = tx.ExecContext(ctx, insertJob, jobArgs(m.Job)...)
			if err != nil {
				return err
			}
		}
		for _, c := range m.Candidates {
			if _, err := tx.ExecContext(ctx, `DELETE FROM candidates WHERE job_id = ? AND name = ?`, c.JobID, c.Name); err != nil {
				return err
			}
		}
		if err := insertRows(ctx, tx, insertCandidate, m.Candidates, candidateArgs); err != nil {
			return err
		}
		if err := insertRows(ctx, tx, insertTestResult, m.TestResults, testResultArgs); err != nil {
			return err
		}
		return insertRows(ctx, tx, insertEvent, m.Events, eventArgs)
	})
	if err != nil {
		return fmt.Errorf("write merged job %s: %w", m.Job.ID, err)
	}
	return nil
}
