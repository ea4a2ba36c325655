package store

import (
	"context"
	"fmt"
)

// A BenchSample is one raw measurement of one benchmark and unit, for base
// or for the candidate: a row of the bench_samples table.
type BenchSample struct {
	JobID, Candidate, Benchmark, Unit string
	Side                              string // "base" or "candidate"
	Round                             int    // pair number, from 0
	Order                             int    // position in measuring order within the candidate's phase
	Value                             float64
	Iterations                        int64

	// Interference during the sample; zero unless Probed. OtherCPU and
	// Steal are fractions of the benchmark CPU's time.
	Probed        bool
	OtherCPU      float64
	Steal         float64
	InvolSwitches int64

	// ReusedFrom names the job that measured the sample, when this row's
	// job reused it from the result cache instead; "" when it measured it.
	ReusedFrom string
}

// AddBenchSamples inserts rows in one transaction. A Side other than
// "base" or "candidate" is refused, and then no row is inserted.
func (db *DB) AddBenchSamples(ctx context.Context, rows []BenchSample) error {
	err := insertAll(ctx, db, `INSERT INTO bench_samples
		(job_id, candidate, benchmark, unit, side, round, run_order, value, iterations,
		 probed, other_cpu, steal, invol_switches, reused_from)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, rows, func(r BenchSample) []any {
		return []any{r.JobID, r.Candidate, r.Benchmark, r.Unit, r.Side, r.Round, r.Order, r.Value, r.Iterations,
			r.Probed, r.OtherCPU, r.Steal, r.InvolSwitches, r.ReusedFrom}
	})
	if err != nil {
		return fmt.Errorf("insert bench samples: %w", err)
	}
	return nil
}

// BenchSamples returns the samples of a candidate of a job, by Order, then
// Benchmark, then Unit.
func (db *DB) BenchSamples(ctx context.Context, jobID, candidate string) ([]BenchSample, error) {
	rows, err := queryAll(ctx, db, `SELECT job_id, candidate, benchmark, unit, side, round, run_order, value, iterations,
		probed, other_cpu, steal, invol_switches, reused_from
		FROM bench_samples WHERE job_id = ? AND candidate = ?
		ORDER BY run_order, benchmark, unit, id`,
		func(s scanner) (BenchSample, error) {
			var r BenchSample
			err := s.Scan(&r.JobID, &r.Candidate, &r.Benchmark, &r.Unit, &r.Side, &r.Round, &r.Order,
				&r.Value, &r.Iterations, &r.Probed, &r.OtherCPU, &r.Steal, &r.InvolSwitches, &r.ReusedFrom)
			return r, err
		}, jobID, candidate)
	if err != nil {
		return nil, fmt.Errorf("read bench samples of %s in job %s: %w", candidate, jobID, err)
	}
	return rows, nil
}
