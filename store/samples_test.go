package store

import (
	"context"
	"testing"
)

// TestDB_BenchSamplesInterference: the interference measured during a
// sample is stored with it and read back (migration 0004).
func TestDB_BenchSamplesInterference(t *testing.T) {
	db := newTestDB(t)
	addJob(t, db, "job1")
	ctx := context.Background()
	want := []BenchSample{
		{JobID: "job1", Candidate: "c", Benchmark: "B", Unit: "sec/op", Side: "base", Order: 0, Value: 1,
			Probed: true, OtherCPU: 0.48, Steal: 0.01, InvolSwitches: 37},
		{JobID: "job1", Candidate: "c", Benchmark: "B", Unit: "sec/op", Side: "candidate", Order: 1, Value: 2},
	}
	if err := db.AddBenchSamples(ctx, want); err != nil {
		t.Fatal(err)
	}
	got, err := db.BenchSamples(ctx, "job1", "c")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("got %d samples, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("sample %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}
