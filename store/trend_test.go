package store

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestDB_BaseHistory: base's median per job and benchmark, oldest job
// first, with its commit and machine. A job whose base samples all came
// from the cache, a running job and another repo's are left out. The limit
// counts only jobs that measured base.
func TestDB_BaseHistory(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	at := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	old := Host{Name: "box", CPU: "Xeon", Kernel: "6.1", Go: "go1.24.0"}
	add := func(id, repo, commit, state, reused string, host Host, base ...float64) {
		t.Helper()
		j := newJob(id)
		j.Repo, j.Base, j.State, j.Started = repo, strings.Repeat(commit, 40), "running", at
		at = at.Add(time.Minute)
		if err := db.StartJob(ctx, j, []Candidate{{JobID: id, Name: "c"}}); err != nil {
			t.Fatal(err)
		}
		var rows []BenchSample
		for i, v := range base {
			for _, bench := range []string{"BenchmarkB", "BenchmarkA"} {
				rows = append(rows,
					BenchSample{JobID: id, Candidate: "c", Benchmark: bench, Unit: "sec/op", Side: "base", Round: i, Order: 2 * i,
						Value: v, Iterations: 1, ReusedFrom: reused, Host: host},
					BenchSample{JobID: id, Candidate: "c", Benchmark: bench, Unit: "sec/op", Side: "candidate", Round: i, Order: 2*i + 1,
						Value: v / 2, Iterations: 1, ReusedFrom: reused, Host: host})
			}
		}
		if err := db.AddBenchSamples(ctx, rows); err != nil {
			t.Fatal(err)
		}
		if state != "running" {
			if err := db.FinishJob(ctx, id, state, "", nil, ""); err != nil {
				t.Fatal(err)
			}
		}
	}
	newer := old
	newer.Go = "go1.25.0"
	add("j1", "/r", "a", "finished", "", old, 3, 1, 2)
	add("j2", "/r", "b", "finished", "", old, 4, 6)
	add("j2-cached", "/r", "b", "finished", "j2", old, 4, 6)
	add("elsewhere", "/s", "b", "finished", "", old, 9)
	add("j3", "/r", "c", "finished", "", newer, 5)
	add("now", "/r", "d", "running", "", newer, 7)

	for _, tc := range []struct {
		jobs int
		want []string
	}{
		{0, []string{
			"j1 aaaaaaa BenchmarkA 2/3 go1.24.0", "j1 aaaaaaa BenchmarkB 2/3 go1.24.0",
			"j2 bbbbbbb BenchmarkA 5/2 go1.24.0", "j2 bbbbbbb BenchmarkB 5/2 go1.24.0",
			"j3 ccccccc BenchmarkA 5/1 go1.25.0", "j3 ccccccc BenchmarkB 5/1 go1.25.0",
		}},
		// The two latest jobs that measured base: the cached one is not one.
		{2, []string{
			"j2 bbbbbbb BenchmarkA 5/2 go1.24.0", "j2 bbbbbbb BenchmarkB 5/2 go1.24.0",
			"j3 ccccccc BenchmarkA 5/1 go1.25.0", "j3 ccccccc BenchmarkB 5/1 go1.25.0",
		}},
	} {
		got, err := db.BaseHistory(ctx, "/r", tc.jobs)
		if err != nil {
			t.Fatal(err)
		}
		var pts []string
		for _, p := range got {
			if p.Unit != "sec/op" || p.Host.Name != "box" || p.Started.IsZero() {
				t.Errorf("point %+v: want sec/op on box, with its job's start", p)
			}
			pts = append(pts, fmt.Sprintf("%s %s %s %g/%d %s", p.JobID, p.Commit[:7], p.Benchmark, p.Value, p.Samples, p.Host.Go))
		}
		equal(t, fmt.Sprintf("the latest %d jobs", tc.jobs), pts, tc.want)
	}
}
