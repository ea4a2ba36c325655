package main

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/store"
)

// The history measure (-history): every job in the stores given, in the
// order they started, replayed three times: with no history; with the
// pairs of the latest evaluator.HistoryJobs earlier jobs like it as its
// job-start event's History, their candidates' names left out (the ETA
// before it read a candidate's own, docs/speed.md's fifth pass); and with
// them by candidate, as a job finds them in its store. "Like it"
// is here the same repository and the same pair limits and threshold: the
// stores these jobs came from may predate the jobs table's bench key.
//
//	go run ./bench/eta -history S1.db S2.db ...

// storedJob is one stored job's benchmarks.
type storedJob struct {
	job  store.Job
	cfg  jobConfig
	runs []benchRun
}

// loadAll reads every job with benchmark pairs in the stores at paths, in
// the order they started.
func loadAll(ctx context.Context, paths []string) ([]storedJob, error) {
	var out []storedJob
	for _, p := range paths {
		db, done, err := openCopy(ctx, p)
		if err != nil {
			return nil, err
		}
		jobs, err := db.Jobs(ctx, 0)
		for _, j := range jobs {
			if j.State != "finished" && j.State != "interrupted" {
				continue
			}
			job, cfg, runs, err := readRuns(ctx, db, p, j.ID)
			if err != nil {
				continue // no pairs
			}
			out = append(out, storedJob{job, cfg, runs})
		}
		done()
		if err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(out, func(a, b storedJob) int { return a.job.Started.Compare(b.job.Started) })
	return out, nil
}

// historyOf is the history job i of jobs starts from: the pairs of the
// latest earlier finished jobs like it, by candidate, latest first
// (store.DB.BenchHistory).
func historyOf(jobs []storedJob, i int) []evaluator.PastBenchmark {
	var hist []evaluator.PastBenchmark
	seen := 0
	for p := i - 1; p >= 0 && seen < evaluator.HistoryJobs; p-- {
		o := jobs[p]
		if o.job.State != "finished" || o.job.Repo != jobs[i].job.Repo || o.cfg != jobs[i].cfg {
			continue
		}
		seen++
		for _, r := range o.runs {
			hist = append(hist, evaluator.PastBenchmark{Candidate: r.name, Pairs: len(r.rounds)})
		}
	}
	return hist
}

// unnamed is hist without its candidates' names: the pairs alone, as the
// ETA had them before it read a candidate's own (the fifth pass).
func unnamed(hist []evaluator.PastBenchmark) []evaluator.PastBenchmark {
	out := slices.Clone(hist)
	for i := range out {
		out[i].Candidate = ""
	}
	return out
}

// reportHistory prints, for each job, its pairs, the benchmarks in its
// history and the replay's measure without it, with its pairs alone and
// with them by candidate; then the mean shares over the jobs that had a
// history.
func reportHistory(w io.Writer, jobs []storedJob) {
	var sums [3]float64
	var n int
	for i, j := range jobs {
		hist := historyOf(jobs, i)
		var shares [3]float64
		var medians [3]float64
		ok := true
		for k, h := range [][]evaluator.PastBenchmark{nil, unnamed(hist), hist} {
			in, shown, median := share(replay(j.cfg, j.runs, h))
			if shown == 0 {
				ok = false
				break
			}
			shares[k], medians[k] = float64(in)/float64(shown), median
		}
		if !ok {
			continue
		}
		fmt.Fprintf(w, "job %s: pairs", j.job.ID)
		for _, r := range j.runs {
			fmt.Fprintf(w, " %d", len(r.rounds))
		}
		fmt.Fprintf(w, "; history of %d benchmarks: within 1.5× (median said / left) %.0f%% (%.2f) without it, %.0f%% (%.2f) with its pairs, %.0f%% (%.2f) by candidate\n",
			len(hist), 100*shares[0], medians[0], 100*shares[1], medians[1], 100*shares[2], medians[2])
		if len(hist) > 0 {
			for k := range sums {
				sums[k] += shares[k]
			}
			n++
		}
	}
	if n == 0 {
		fmt.Fprintln(w, "no job had a history")
		return
	}
	fmt.Fprintf(w, "%d jobs with a history: within 1.5× for %.1f%% of the benchmark phase on average without it, %.1f%% with its pairs, %.1f%% by candidate\n",
		n, 100*sums[0]/float64(n), 100*sums[1]/float64(n), 100*sums[2]/float64(n))
}
