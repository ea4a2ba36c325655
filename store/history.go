package store

import (
	"context"
	"fmt"
)

// measuredPairs is the pairs a candidates row's own job measured: its
// pairs without those reused from the result cache.
const measuredPairs = `c.pairs - coalesce(json_extract(c.result, '$.reused_pairs'), 0)`

// PastBenchmark is one candidate's benchmark in an earlier job: the
// candidate's name and the pairs its job measured.
type PastBenchmark struct {
	Candidate string
	Pairs     int
}

// BenchHistory returns the pairs each benchmark measured in the latest
// jobs finished on repo with the bench key key (Job.BenchKey), job exclude
// left out. It reads at most jobs of them, counting only jobs that measured
// a pair, latest first and in input order within a job. Pairs
// reused from the result cache are not counted: they took no time. A key
// of "" has no history.
func (db *DB) BenchHistory(ctx context.Context, repo, key, exclude string, jobs int) ([]PastBenchmark, error) {
	if key == "" || jobs <= 0 {
		return nil, nil
	}
	past, err := queryAll(ctx, db, `
		SELECT c.name, `+measuredPairs+` FROM candidates c JOIN (
			SELECT id, started FROM jobs j
			WHERE repo = ? AND bench_key = ? AND id <> ? AND state = 'finished'
				AND EXISTS (SELECT 1 FROM candidates c WHERE c.job_id = j.id AND `+measuredPairs+` > 0)
			ORDER BY started DESC, id DESC LIMIT ?
		) j ON c.job_id = j.id
		WHERE `+measuredPairs+` > 0
		ORDER BY j.started DESC, j.id DESC, c.seq`,
		func(s scanner) (PastBenchmark, error) {
			var b PastBenchmark
			err := s.Scan(&b.Candidate, &b.Pairs)
			return b, err
		}, repo, key, exclude, jobs)
	if err != nil {
		return nil, fmt.Errorf("read the benchmark history of %s: %w", repo, err)
	}
	return past, nil
}
