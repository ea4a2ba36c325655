package store

import (
	"context"
	"fmt"
)

// A TestResult is the outcome of one test of one candidate, or of base when
// Candidate is "": a row of the test_results table.
type TestResult struct {
	JobID, Candidate, Package, Test, Status, Output string
}

// AddTestResults inserts rows in one transaction.
func (db *DB) AddTestResults(ctx context.Context, rows []TestResult) error {
	err := insertAll(ctx, db, insertTestResult, rows, testResultArgs)
	if err != nil {
		return fmt.Errorf("insert test results: %w", err)
	}
	return nil
}

const insertTestResult = `INSERT INTO test_results (job_id, candidate, package, test, status, output)
	VALUES (?, ?, ?, ?, ?, ?)`

func testResultArgs(r TestResult) []any {
	return []any{r.JobID, r.Candidate, r.Package, r.Test, r.Status, r.Output}
}

// TestResults returns the test results of a candidate of a job ("" for
// base), in the order they were added.
func (db *DB) TestResults(ctx context.Context, jobID, candidate string) ([]TestResult, error) {
	rows, err := queryAll(ctx, db, `SELECT job_id, candidate, package, test, status, output
		FROM test_results WHERE job_id = ? AND candidate = ? ORDER BY id`,
		func(s scanner) (TestResult, error) {
			var r TestResult
			err := s.Scan(&r.JobID, &r.Candidate, &r.Package, &r.Test, &r.Status, &r.Output)
			return r, err
		}, jobID, candidate)
	if err != nil {
		return nil, fmt.Errorf("read test results of %s in job %s: %w", candidate, jobID, err)
	}
	return rows, nil
}
