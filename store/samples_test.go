package store

import (
	"context"
	"errors"
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

// TestDB_BenchSamplesHost: every sample records its host (migration 0007),
// and a job refuses samples from a second host, within one call or after
// earlier ones, inserting none of them.
func TestDB_BenchSamplesHost(t *testing.T) {
	db := newTestDB(t)
	addJob(t, db, "job1")
	addJob(t, db, "job2")
	ctx := context.Background()
	a := Host{Name: "bench-1", CPU: "Xeon 8375C", Kernel: "6.1.0", Go: "go1.26.0"}
	b := a
	b.Name = "bench-2"
	sample := func(job string, order int, h Host) BenchSample {
		return BenchSample{JobID: job, Candidate: "c", Benchmark: "B", Unit: "sec/op", Side: "base", Order: order, Value: 1, Host: h}
	}
	if err := db.AddBenchSamples(ctx, []BenchSample{sample("job1", 0, a)}); err != nil {
		t.Fatal(err)
	}
	err := db.AddBenchSamples(ctx, []BenchSample{sample("job1", 1, b)})
	var he *HostError
	if !errors.As(err, &he) || !errors.Is(err, ErrMixedHosts) || he.Have != a || he.Want != b {
		t.Fatalf("a second host's sample: err = %v, want a *HostError from %v to %v", err, a, b)
	}
	if err := db.AddBenchSamples(ctx, []BenchSample{sample("job2", 0, b), sample("job2", 1, a)}); !errors.Is(err, ErrMixedHosts) {
		t.Fatalf("two hosts in one call: err = %v, want ErrMixedHosts", err)
	}
	if got, _ := db.BenchSamples(ctx, "job2", "c"); len(got) != 0 {
		t.Errorf("a refused call inserted %d samples", len(got))
	}
	if err := db.AddBenchSamples(ctx, []BenchSample{sample("job2", 0, b)}); err != nil {
		t.Fatalf("another job, another host: %v", err)
	}
	got, err := db.BenchSamples(ctx, "job1", "c")
	if err != nil || len(got) != 1 || got[0].Host != a {
		t.Fatalf("job1's samples = %+v, %v; want one from %v", got, err, a)
	}
	hosts, err := db.BenchHosts(ctx, "job1")
	if err != nil || len(hosts) != 1 || hosts[0] != a {
		t.Errorf("BenchHosts(job1) = %v, %v; want [%v]", hosts, err, a)
	}
}
