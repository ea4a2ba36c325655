package store

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestDB_BenchHistory: the history is the measured pairs, by candidate, of
// the latest finished jobs on the same repo with the same bench key. It is
// latest job first and in input order within it. Reused pairs do not
// count, and a job that measured nothing is not one of the latest. The job
// excluded, a running job, another repo's and another key's are left out.
func TestDB_BenchHistory(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	at := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	type cand struct {
		pairs, reused int
	}
	add := func(id, repo, key, state string, cands ...cand) {
		t.Helper()
		j := newJob(id)
		j.Repo, j.BenchKey, j.State, j.Started = repo, key, "running", at
		at = at.Add(time.Minute)
		var rows []Candidate
		for i, c := range cands {
			rows = append(rows, Candidate{JobID: id, Seq: i, Name: fmt.Sprint("c", i), Pairs: c.pairs,
				Result: fmt.Appendf(nil, `{"pairs":%d,"reused_pairs":%d}`, c.pairs, c.reused)})
		}
		if err := db.StartJob(ctx, j, rows); err != nil {
			t.Fatal(err)
		}
		if state != "running" {
			if err := db.FinishJob(ctx, id, state, "", nil, ""); err != nil {
				t.Fatal(err)
			}
		}
	}
	add("old", "/r", "k", "finished", cand{pairs: 9})
	add("a", "/r", "k", "finished", cand{pairs: 8}, cand{}, cand{pairs: 12, reused: 10}, cand{pairs: 30})
	add("other-key", "/r", "k2", "finished", cand{pairs: 11})
	add("other-repo", "/s", "k", "finished", cand{pairs: 13})
	add("cut", "/r", "k", "interrupted", cand{pairs: 14})
	add("b", "/r", "k", "finished", cand{pairs: 15}, cand{pairs: 16})
	add("all-reused", "/r", "k", "finished", cand{pairs: 20, reused: 20})
	add("now", "/r", "k", "running", cand{pairs: 17})

	for _, tc := range []struct {
		key, exclude string
		jobs         int
		want         []string // candidate:pairs
	}{
		{"k", "now", 2, []string{"c0:15", "c1:16", "c0:8", "c2:2", "c3:30"}},
		{"k", "now", 5, []string{"c0:15", "c1:16", "c0:8", "c2:2", "c3:30", "c0:9"}},
		{"k", "b", 1, []string{"c0:8", "c2:2", "c3:30"}},
		{"k2", "", 5, []string{"c0:11"}},
		{"", "", 5, nil},
		{"k", "", 0, nil},
	} {
		got, err := db.BenchHistory(ctx, "/r", tc.key, tc.exclude, tc.jobs)
		if err != nil {
			t.Fatal(err)
		}
		var past []string
		for _, b := range got {
			past = append(past, fmt.Sprintf("%s:%d", b.Candidate, b.Pairs))
		}
		equal(t, fmt.Sprintf("key %q without %q, %d jobs", tc.key, tc.exclude, tc.jobs), past, tc.want)
	}
}
