package store

import (
	"context"
	"fmt"
	"testing"
)

// Benchmarks of the write hot paths: a benchmark phase writes a batch of
// samples per round, and each candidate's row is rewritten as it finishes.

func BenchmarkDB_AddBenchSamples(b *testing.B) {
	for _, size := range []int{1, 16, 256} {
		b.Run(fmt.Sprint("batch=", size), func(b *testing.B) {
			db := newTestDB(b)
			addJob(b, db, "job1")
			rows := make([]BenchSample, size)
			for i := range rows {
				rows[i] = BenchSample{JobID: "job1", Candidate: "fast", Benchmark: fmt.Sprint("Benchmark", i%8),
					Unit: "sec/op", Side: "candidate", Order: i, Value: 1.5e-6, Iterations: 100000}
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if err := db.AddBenchSamples(ctx, rows); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*size), "ns/row")
		})
	}
}

func BenchmarkDB_UpdateCandidate(b *testing.B) {
	db := newTestDB(b)
	addJob(b, db, "job1")
	ctx := context.Background()
	c := newCandidate("job1", 0, "fast")
	if err := db.AddCandidates(ctx, []Candidate{c}); err != nil {
		b.Fatal(err)
	}
	c.Result = make([]byte, 2048) // a typical result JSON
	for i := range c.Result {
		c.Result[i] = 'x'
	}
	b.ReportAllocs()
	for b.Loop() {
		c.Pairs++
		if err := db.UpdateCandidate(ctx, c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDB_AddEvent(b *testing.B) {
	db := newTestDB(b)
	addJob(b, db, "job1")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := db.AddEvent(ctx, Event{JobID: "job1", Kind: "progress", Candidate: "fast", Message: "round 3"}); err != nil {
			b.Fatal(err)
		}
	}
}
