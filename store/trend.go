package store

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// A BasePoint is base's value of one benchmark in one job, as the job
// measured it. It is the median of its own base samples of that benchmark,
// leaving out those it reused from the result cache.
type BasePoint struct {
	JobID     string
	Commit    string // the job's base
	Started   time.Time
	Benchmark string
	Unit      string
	Value     float64 // the median of Samples base samples
	Samples   int
	Host      Host // the machine the samples were taken on
}

// BaseHistory returns base's value of each benchmark in the latest jobs
// finished on repo, at most jobs of them. They come oldest job first, and
// by benchmark and unit within a job. A job that measured no base sample
// itself, such as one answered from the result cache, has no point: its
// numbers are an earlier job's. A jobs value <= 0 means all of them.
func (db *DB) BaseHistory(ctx context.Context, repo string, jobs int) ([]BasePoint, error) {
	if jobs <= 0 {
		jobs = -1 // no limit, to SQLite
	}
	type row struct {
		BasePoint
		value float64
	}
	rows, err := queryAll(ctx, db, `
		SELECT s.job_id, j.base, j.started, s.benchmark, s.unit, s.value, s.host_name, s.host_cpu, s.host_kernel, s.host_go
		FROM bench_samples s JOIN (
			SELECT id, base, started FROM jobs j
			WHERE repo = ? AND state = 'finished'
				AND EXISTS (SELECT 1 FROM bench_samples s WHERE s.job_id = j.id AND s.side = 'base' AND s.reused_from = '')
			ORDER BY started DESC, id DESC LIMIT ?
		) j ON s.job_id = j.id
		WHERE s.side = 'base' AND s.reused_from = ''
		ORDER BY j.started, j.id, s.benchmark, s.unit`,
		func(s scanner) (row, error) {
			var r row
			err := s.Scan(&r.JobID, &r.Commit, timeCol{&r.Started}, &r.Benchmark, &r.Unit, &r.value,
				&r.Host.Name, &r.Host.CPU, &r.Host.Kernel, &r.Host.Go)
			return r, err
		}, repo, jobs)
	if err != nil {
		return nil, fmt.Errorf("read the base history of %s: %w", repo, err)
	}
	var out []BasePoint
	var values []float64
	flush := func() {
		if len(values) > 0 {
			out[len(out)-1].Value, out[len(out)-1].Samples = median(values), len(values)
		}
		values = values[:0]
	}
	for _, r := range rows {
		if n := len(out); n == 0 || out[n-1].JobID != r.JobID || out[n-1].Benchmark != r.Benchmark || out[n-1].Unit != r.Unit {
			flush()
			out = append(out, r.BasePoint)
		}
		values = append(values, r.value)
	}
	flush()
	return out, nil
}

// median is the middle of xs, or the mean of the two middle values; it
// sorts xs.
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}
