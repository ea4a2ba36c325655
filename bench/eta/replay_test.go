package main

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/evaluator/stats"
	"github.com/optimizer-dev/optimizer/store"
)

// TestToRun: a candidate's rows become rounds of its timed metrics, in
// the order the benchmarks first appear; other units are left out, and so
// is a last round missing a side.
func TestToRun(t *testing.T) {
	row := func(bench, unit, side string, round int, v float64) store.BenchSample {
		return store.BenchSample{Benchmark: bench, Unit: unit, Side: side, Round: round, Value: v}
	}
	r := toRun("c", []store.BenchSample{
		row("B", "sec/op", "base", 0, 2), row("B", "B/op", "base", 0, 64), row("A", "sec/op", "base", 0, 4),
		row("B", "sec/op", "candidate", 0, 1), row("A", "sec/op", "candidate", 0, 3),
		row("B", "sec/op", "base", 1, 2.5), row("A", "sec/op", "base", 1, 4.5),
		row("B", "sec/op", "candidate", 1, 1.5), row("A", "sec/op", "candidate", 1, 3.5),
		row("B", "sec/op", "base", 2, 2), // round 2: no candidate side yet
	})
	if len(r.names) != 2 || r.names[0] != "B" || r.names[1] != "A" {
		t.Fatalf("names %v, want [B A]", r.names)
	}
	want := [][]stats.Pair{{{Base: 2, Cand: 1}, {Base: 4, Cand: 3}}, {{Base: 2.5, Cand: 1.5}, {Base: 4.5, Cand: 3.5}}}
	if len(r.rounds) != len(want) {
		t.Fatalf("%d rounds, want %d", len(r.rounds), len(want))
	}
	for i := range want {
		for b := range want[i] {
			if r.rounds[i][b] != want[i][b] {
				t.Errorf("round %d benchmark %d: %+v, want %+v", i, b, r.rounds[i][b], want[i][b])
			}
		}
	}
}

// TestReplay: two clear changes of 8 pairs, replayed at a pair a second
// with a second of set-up each, make a 16 s phase (the first pair comes a second after each start); the ETA, shown from
// the first pair, is right by the end of the first benchmark (it knows
// then what both take), and never negative.
func TestReplay(t *testing.T) {
	clear := benchRun{names: []string{"B"}}
	for i := range 8 {
		clear.rounds = append(clear.rounds, []stats.Pair{{Base: 2e-6, Cand: 1e-6 * (1 + 0.01*float64(i%3))}})
	}
	a, b := clear, clear
	a.name, b.name = "a", "b"
	est := replay(jobConfig{MinPairs: 6, MaxPairs: 12, MinSpeedup: 5}, []benchRun{a, b}, nil)
	if got := est[len(est)-1].at + 100*time.Millisecond; got != 16*time.Second {
		t.Fatalf("phase of %s, want 16s", got)
	}
	for _, r := range est {
		if r.said < -1 || r.left <= 0 {
			t.Fatalf("at %s: said %s, left %s", r.at, r.said, r.left)
		}
		if r.at >= 8*time.Second && !within(r.said, r.left) {
			t.Errorf("at %s, after a's benchmark: said %s, %s left", r.at, r.said, r.left)
		}
	}
}

// TestHistoryOf: a job's history is the pairs of the latest
// evaluator.HistoryJobs finished jobs before it on the same repository
// with the same limits, by candidate, latest first, as
// store.DB.BenchHistory gives them.
func TestHistoryOf(t *testing.T) {
	job := func(repo, state string, cfg jobConfig, pairs ...int) storedJob {
		j := storedJob{job: store.Job{Repo: repo, State: state}, cfg: cfg}
		for k, p := range pairs {
			j.runs = append(j.runs, benchRun{name: fmt.Sprint("c", k), rounds: make([][]stats.Pair, p)})
		}
		return j
	}
	cfg := jobConfig{MinPairs: 6, MaxPairs: 30, MinSpeedup: 5}
	jobs := []storedJob{job("/r", "finished", cfg, 1)}
	for i := range evaluator.HistoryJobs {
		jobs = append(jobs, job("/r", "finished", cfg, 10+i, 20+i))
	}
	jobs = append(jobs,
		job("/r", "interrupted", cfg, 3),
		job("/s", "finished", cfg, 4),
		job("/r", "finished", jobConfig{MinPairs: 6, MaxPairs: 20, MinSpeedup: 5}, 5),
		job("/r", "running", cfg))
	var want []evaluator.PastBenchmark
	for i := evaluator.HistoryJobs - 1; i >= 0; i-- {
		want = append(want, evaluator.PastBenchmark{Candidate: "c0", Pairs: 10 + i}, evaluator.PastBenchmark{Candidate: "c1", Pairs: 20 + i})
	}
	if got := historyOf(jobs, len(jobs)-1); !slices.Equal(got, want) {
		t.Errorf("history %v, want %v", got, want)
	}
	if got := historyOf(jobs, 0); got != nil {
		t.Errorf("the first job's history %v, want none", got)
	}
}
