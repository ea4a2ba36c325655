package store

import (
	"context"
	"database/sql"
	"errors"
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

	Host Host // the machine the sample was taken on
}

// A Host names the machine a benchmark sample was taken on. Two samples
// are comparable only when their hosts are equal.
type Host struct {
	Name   string // hostname
	CPU    string // CPU model, as /proc/cpuinfo names it
	Kernel string // kernel release
	Go     string // Go version of the toolchain that built the benchmarks
}

func (h Host) String() string {
	return fmt.Sprintf("%s (%s, kernel %s, %s)", h.Name, h.CPU, h.Kernel, h.Go)
}

// ErrMixedHosts is returned by AddBenchSamples for samples of a job whose
// earlier samples were taken on another host: a pair split across hosts
// measures the hosts, not the code.
var ErrMixedHosts = errors.New("benchmark samples from two hosts in one job")

// A HostError is ErrMixedHosts with the two hosts.
type HostError struct {
	JobID      string
	Have, Want Host // the job's samples so far; the refused ones
}

func (e *HostError) Error() string {
	return fmt.Sprintf("job %s has benchmark samples from %s; these are from %s: a pair split across hosts measures the hosts, not the code",
		e.JobID, e.Have, e.Want)
}

// Unwrap returns ErrMixedHosts.
func (e *HostError) Unwrap() error { return ErrMixedHosts }

// AddBenchSamples inserts rows in one transaction. A Side other than
// "base" or "candidate" is refused, and then no row is inserted.
//
// Every sample of a job must come from one host. Rows whose Host differs
// from another row's, or from the job's samples already stored, are refused
// with a *HostError. Then no row is inserted.
func (db *DB) AddBenchSamples(ctx context.Context, rows []BenchSample) error {
	if len(rows) == 0 {
		return nil
	}
	err := db.write(ctx, func(tx *sql.Tx) error {
		first := map[string]Host{} // job -> the host of its first row here
		for _, r := range rows {
			h, seen := first[r.JobID]
			if !seen {
				if err := checkHost(ctx, tx, r); err != nil {
					return err
				}
				first[r.JobID] = r.Host
				continue
			}
			if r.Host != h {
				return &HostError{JobID: r.JobID, Have: h, Want: r.Host}
			}
		}
		return insertRows(ctx, tx, `INSERT INTO bench_samples
		(job_id, candidate, benchmark, unit, side, round, run_order, value, iterations,
		 probed, other_cpu, steal, invol_switches, reused_from, host_name, host_cpu, host_kernel, host_go)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, rows, func(r BenchSample) []any {
			return []any{r.JobID, r.Candidate, r.Benchmark, r.Unit, r.Side, r.Round, r.Order, r.Value, r.Iterations,
				r.Probed, r.OtherCPU, r.Steal, r.InvolSwitches, r.ReusedFrom, r.Host.Name, r.Host.CPU, r.Host.Kernel, r.Host.Go}
		})
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
		probed, other_cpu, steal, invol_switches, reused_from, host_name, host_cpu, host_kernel, host_go
		FROM bench_samples WHERE job_id = ? AND candidate = ?
		ORDER BY run_order, benchmark, unit, id`,
		func(s scanner) (BenchSample, error) {
			var r BenchSample
			err := s.Scan(&r.JobID, &r.Candidate, &r.Benchmark, &r.Unit, &r.Side, &r.Round, &r.Order,
				&r.Value, &r.Iterations, &r.Probed, &r.OtherCPU, &r.Steal, &r.InvolSwitches, &r.ReusedFrom,
				&r.Host.Name, &r.Host.CPU, &r.Host.Kernel, &r.Host.Go)
			return r, err
		}, jobID, candidate)
	if err != nil {
		return nil, fmt.Errorf("read bench samples of %s in job %s: %w", candidate, jobID, err)
	}
	return rows, nil
}

// checkHost refuses r when its job already has samples, in tx, from
// another host. Since they all share one host, reading one is enough (and
// costs one index probe, however many samples the job has).
func checkHost(ctx context.Context, tx *sql.Tx, r BenchSample) error {
	var have Host
	err := tx.QueryRowContext(ctx, `SELECT host_name, host_cpu, host_kernel, host_go FROM bench_samples
		WHERE job_id = ? LIMIT 1`, r.JobID).Scan(&have.Name, &have.CPU, &have.Kernel, &have.Go)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return err
	case have == r.Host:
		return nil
	}
	return &HostError{JobID: r.JobID, Have: have, Want: r.Host}
}

// BenchHosts returns the distinct hosts the samples of a job were taken on.
func (db *DB) BenchHosts(ctx context.Context, jobID string) ([]Host, error) {
	hosts, err := queryAll(ctx, db, `SELECT DISTINCT host_name, host_cpu, host_kernel, host_go
		FROM bench_samples WHERE job_id = ? ORDER BY 1, 2, 3, 4`,
		func(s scanner) (Host, error) {
			var h Host
			err := s.Scan(&h.Name, &h.CPU, &h.Kernel, &h.Go)
			return h, err
		}, jobID)
	if err != nil {
		return nil, fmt.Errorf("read the hosts of job %s's samples: %w", jobID, err)
	}
	return hosts, nil
}

// ClearBench deletes a candidate's benchmark samples and results in a job,
// so that measuring it again does not mix with an attempt that was cut off.
func (db *DB) ClearBench(ctx context.Context, jobID, candidate string) error {
	err := db.write(ctx, func(tx *sql.Tx) error {
		for _, q := range []string{
			`DELETE FROM bench_samples WHERE job_id = ? AND candidate = ?`,
			`DELETE FROM bench_results WHERE job_id = ? AND candidate = ?`,
		} {
			if _, err := tx.ExecContext(ctx, q, jobID, candidate); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("clear the benchmarks of %s in job %s: %w", candidate, jobID, err)
	}
	return nil
}
