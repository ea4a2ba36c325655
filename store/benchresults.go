package store

import (
	"context"
	"fmt"
)

// A BenchResult is the comparison of one benchmark and unit between base
// and a candidate: a row of the bench_results table.
type BenchResult struct {
	JobID, Candidate, Benchmark, Unit, Verdict string
	Base, Value, Speedup, CILow, CIHigh, P     float64
	Pairs                                      int
}

// AddBenchResults inserts rows in one transaction.
func (db *DB) AddBenchResults(ctx context.Context, rows []BenchResult) error {
	err := insertAll(ctx, db, `INSERT INTO bench_results
		(job_id, candidate, benchmark, unit, verdict, base, value, speedup, ci_low, ci_high, p, pairs)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, rows, func(r BenchResult) []any {
		return []any{r.JobID, r.Candidate, r.Benchmark, r.Unit, r.Verdict, r.Base, r.Value, r.Speedup,
			r.CILow, r.CIHigh, r.P, r.Pairs}
	})
	if err != nil {
		return fmt.Errorf("insert bench results: %w", err)
	}
	return nil
}

// BenchResults returns the results of a candidate of a job, in the order
// they were added.
func (db *DB) BenchResults(ctx context.Context, jobID, candidate string) ([]BenchResult, error) {
	rows, err := queryAll(ctx, db, `SELECT job_id, candidate, benchmark, unit, verdict,
		base, value, speedup, ci_low, ci_high, p, pairs
		FROM bench_results WHERE job_id = ? AND candidate = ? ORDER BY id`,
		func(s scanner) (BenchResult, error) {
			var r BenchResult
			err := s.Scan(&r.JobID, &r.Candidate, &r.Benchmark, &r.Unit, &r.Verdict, &r.Base, &r.Value,
				&r.Speedup, &r.CILow, &r.CIHigh, &r.P, &r.Pairs)
			return r, err
		}, jobID, candidate)
	if err != nil {
		return nil, fmt.Errorf("read bench results of %s in job %s: %w", candidate, jobID, err)
	}
	return rows, nil
}
