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
// order they started, replayed twice, once with no history and once with
// the pairs of the latest evaluator.HistoryJobs earlier jobs like it as its
// job-start event's History, as a job finds them in its store. "Like it"
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
// latest earlier finished jobs like it, latest first (store.DB.BenchHistory).
func historyOf(jobs []storedJob, i int) []int {
	var hist []int
	seen := 0
	for p := i - 1; p >= 0 && seen < evaluator.HistoryJobs; p-- {
		o := jobs[p]
		if o.job.State != "finished" || o.job.Repo != jobs[i].job.Repo || o.cfg != jobs[i].cfg {
			continue
		}
		seen++
		for _, r := range o.runs {
			hist = append(hist, len(r.rounds))
		}
	}
	return hist
}

// reportHistory prints, for each job, its pairs, the benchmarks in its
// history and the replay's measure without and with it; then the mean
// share over the jobs that had a history.
func reportHistory(w io.Writer, jobs []storedJob) {
	var sumWithout, sumWith float64
	var n int
	for i, j := range jobs {
		hist := historyOf(jobs, i)
		in1, shown1, mWithout := share(replay(j.cfg, j.runs, nil))
		in2, shown2, mWith := share(replay(j.cfg, j.runs, hist))
		if shown1 == 0 || shown2 == 0 {
			continue
		}
		without, with := float64(in1)/float64(shown1), float64(in2)/float64(shown2)
		fmt.Fprintf(w, "job %s: pairs", j.job.ID)
		for _, r := range j.runs {
			fmt.Fprintf(w, " %d", len(r.rounds))
		}
		fmt.Fprintf(w, "; history of %d benchmarks: within 1.5× %.0f%% (median said / left %.2f) without it, %.0f%% (%.2f) with it\n",
			len(hist), 100*without, mWithout, 100*with, mWith)
		if len(hist) > 0 {
			sumWithout, sumWith, n = sumWithout+without, sumWith+with, n+1
		}
	}
	if n == 0 {
		fmt.Fprintln(w, "no job had a history")
		return
	}
	fmt.Fprintf(w, "%d jobs with a history: within 1.5× for %.1f%% of the benchmark phase on average without it, %.1f%% with it\n",
		n, 100*sumWithout/float64(n), 100*sumWith/float64(n))
}
