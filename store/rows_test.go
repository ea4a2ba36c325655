package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Round trips of the rows that hang off a job.

func TestDB_TestResults(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	addJob(t, db, "job1")
	rows := []TestResult{
		{JobID: "job1", Candidate: "", Package: "p", Test: "TestB", Status: "pass"},
		{JobID: "job1", Candidate: "fast", Package: "p", Test: "TestB", Status: "fail", Output: "boom\n"},
		{JobID: "job1", Candidate: "", Package: "p", Test: "TestA", Status: "pass", Output: "ok"},
	}
	if err := db.AddTestResults(ctx, rows); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, candidate string
		want            []TestResult
	}{
		{"Base", "", []TestResult{rows[0], rows[2]}},
		{"Candidate", "fast", []TestResult{rows[1]}},
		{"None", "slow", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.TestResults(ctx, "job1", tt.candidate)
			if err != nil {
				t.Fatal(err)
			}
			equal(t, "test results", got, tt.want)
		})
	}
}

func TestDB_BenchSamples(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	addJob(t, db, "job1")
	s := func(bench, unit, side string, round, order int, v float64) BenchSample {
		return BenchSample{JobID: "job1", Candidate: "fast", Benchmark: bench, Unit: unit, Side: side,
			Round: round, Order: order, Value: v, Iterations: 1 << 40}
	}
	rows := []BenchSample{
		s("BenchmarkB", "sec/op", "candidate", 0, 1, 4.5e-6),
		s("BenchmarkA", "sec/op", "candidate", 0, 1, 3.5e-6),
		s("BenchmarkA", "B/op", "base", 0, 0, 64),
		s("BenchmarkA", "sec/op", "base", 0, 0, 5.1e-5),
		{JobID: "job1", Candidate: "other", Benchmark: "BenchmarkA", Unit: "sec/op", Side: "base"},
	}
	if err := db.AddBenchSamples(ctx, rows); err != nil {
		t.Fatal(err)
	}
	got, err := db.BenchSamples(ctx, "job1", "fast")
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "samples", got, []BenchSample{rows[2], rows[3], rows[1], rows[0]})

	t.Run("BadSide", func(t *testing.T) {
		bad := s("BenchmarkC", "sec/op", "cand", 1, 2, 1)
		if err := db.AddBenchSamples(ctx, []BenchSample{s("BenchmarkC", "sec/op", "base", 1, 2, 1), bad}); err == nil {
			t.Fatal("sample with side \"cand\" was accepted")
		}
		if n := count(t, db, "bench_samples"); n != len(rows) {
			t.Errorf("%d samples after a failed batch, want %d", n, len(rows))
		}
	})
}

func TestDB_BenchResults(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	addJob(t, db, "job1")
	rows := []BenchResult{
		{JobID: "job1", Candidate: "fast", Benchmark: "BenchmarkX", Unit: "sec/op", Verdict: "faster",
			Base: 5.1e-5, Value: 4.3e-6, Speedup: 11.8, CILow: 11.1, CIHigh: 12.6, P: 0.0005, Pairs: 8},
		{JobID: "job1", Candidate: "fast", Benchmark: "BenchmarkA", Unit: "B/op", Verdict: "same",
			Base: 64, Value: 64, Speedup: 1, CILow: 1, CIHigh: 1, P: 1, Pairs: 8},
		{JobID: "job1", Candidate: "slow", Benchmark: "BenchmarkX", Unit: "sec/op", Verdict: "slower"},
	}
	if err := db.AddBenchResults(ctx, rows); err != nil {
		t.Fatal(err)
	}
	got, err := db.BenchResults(ctx, "job1", "fast")
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "bench results", got, rows[:2])
}

func TestDB_Events(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	addJob(t, db, "job1")
	addJob(t, db, "job2")
	events := []Event{
		{JobID: "job1", Time: testTime.Add(time.Second).UTC(), Kind: "done", Candidate: "fast", Message: "passed"},
		{JobID: "job1", Time: testTime.UTC(), Kind: "start", Message: "job started"},
		{JobID: "job1", Time: testTime.Add(time.Second).UTC(), Kind: "done", Candidate: "slow"},
		{JobID: "job2", Time: testTime.UTC(), Kind: "start"},
	}
	for _, e := range events {
		if err := db.AddEvent(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.Events(ctx, "job1")
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "events", got, []Event{events[1], events[0], events[2]})

	t.Run("ZeroTime", func(t *testing.T) {
		before := time.Now().Truncate(time.Second)
		if err := db.AddEvent(ctx, Event{JobID: "job2", Kind: "x"}); err != nil {
			t.Fatal(err)
		}
		got, err := db.Events(ctx, "job2")
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[1].Time.Before(before) {
			t.Errorf("events = %+v, want a second one stamped now", got)
		}
	})
}

func TestDB_Profiles(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	addJob(t, db, "job1")
	profiles := []Profile{
		{JobID: "job1", Candidate: "fast", Kind: "cpu", BasePath: "/a/base.pprof", Path: "/a/cpu.pprof",
			Summary: []byte(`{"top":[]}`), Created: testTime.UTC()},
		{JobID: "job1", Candidate: "fast", Kind: "command", Path: "/a/cmd.pprof", Created: testTime.UTC()},
	}
	for _, p := range profiles {
		if err := db.AddProfile(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.Profiles(ctx, "job1")
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "profiles", got, profiles)
}

func TestDB_Baseline(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	if _, err := db.Baseline(ctx, "k"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Baseline of a missing key = %v, want ErrNotFound", err)
	}
	for _, v := range []string{"first\x00blob", "second"} {
		if err := db.PutBaseline(ctx, "k", []byte(v)); err != nil {
			t.Fatal(err)
		}
		got, err := db.Baseline(ctx, "k")
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != v {
			t.Errorf("Baseline = %q, want %q", got, v)
		}
	}
	if n := count(t, db, "baselines"); n != 1 {
		t.Errorf("%d baseline rows, want 1", n)
	}
}
