package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/evaluator/stats"
	"github.com/optimizer-dev/optimizer/store"
)

// The replay measure (-store): a job's stored pairs, fed again through
// evaluator.ETA as the events the job emitted would have carried them,
// forecasts included, at a fixed pace (a pair a second, base's samples
// half a second, a second of set-up before each benchmark's first pair).
// What it measures is the part of the ETA that is hardest: how many pairs
// each benchmark takes, the one being measured and those to come. The
// pace and the set-ups, which a live run adds, are the same for every
// estimate, so one job's pairs compare two versions of the ETA with no
// noise between them; run it with each version's code.
//
//	go run ./bench/eta -store S [-job ID]

// benchRun is one candidate's stored pairs, in measuring order.
type benchRun struct {
	name   string
	names  []string       // the timed benchmarks
	rounds [][]stats.Pair // rounds[r][b]
}

// jobConfig is the part of a job's recorded configuration the replay needs.
type jobConfig struct {
	MinPairs   int     `json:"min_pairs"`
	MaxPairs   int     `json:"max_pairs"`
	MinSpeedup float64 `json:"min_speedup"` // percent
}

// openCopy opens a copy of the store at path, migrated to this
// optimizer's schema, in a temporary directory that done removes: the
// store itself is left as it was, whatever its schema.
func openCopy(ctx context.Context, path string) (*store.DB, func(), error) {
	dir, err := os.MkdirTemp("", "eta-store-")
	if err != nil {
		return nil, nil, err
	}
	done := func() { os.RemoveAll(dir) }
	dst := filepath.Join(dir, "store.db")
	for _, ext := range []string{"", "-wal"} {
		data, err := os.ReadFile(path + ext)
		if errors.Is(err, fs.ErrNotExist) && ext != "" {
			continue
		}
		if err == nil {
			err = os.WriteFile(dst+ext, data, 0o644)
		}
		if err != nil {
			done()
			return nil, nil, err
		}
	}
	db, err := store.Open(ctx, dst)
	if err != nil {
		done()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return db, func() { db.Close(); done() }, nil
}

// loadRuns reads a job's benchmarks from the store at path: the job given,
// or the latest.
func loadRuns(ctx context.Context, path, jobID string) (store.Job, jobConfig, []benchRun, error) {
	db, done, err := openCopy(ctx, path)
	if err != nil {
		return store.Job{}, jobConfig{}, nil, err
	}
	defer done()
	return readRuns(ctx, db, path, jobID)
}

// readRuns reads a job's benchmarks from db, a copy of the store at path:
// the job given, or the latest.
func readRuns(ctx context.Context, db *store.DB, path, jobID string) (store.Job, jobConfig, []benchRun, error) {
	var cfg jobConfig
	job, err := db.FindJob(ctx, jobID)
	if err != nil {
		return job, cfg, nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(job.Config) > 0 {
		if err := json.Unmarshal(job.Config, &cfg); err != nil {
			return job, cfg, nil, fmt.Errorf("job %s's configuration: %w", job.ID, err)
		}
	}
	cands, err := db.Candidates(ctx, job.ID)
	if err != nil {
		return job, cfg, nil, err
	}
	// Phase 2 measures the candidates that passed in their input order.
	slices.SortFunc(cands, func(a, b store.Candidate) int { return cmp.Compare(a.Seq, b.Seq) })
	var runs []benchRun
	for _, c := range cands {
		rows, err := db.BenchSamples(ctx, job.ID, c.Name)
		if err != nil {
			return job, cfg, nil, err
		}
		if r := toRun(c.Name, rows); len(r.rounds) > 0 {
			runs = append(runs, r)
		}
	}
	if len(runs) == 0 {
		return job, cfg, nil, fmt.Errorf("job %s has no benchmark pairs", job.ID)
	}
	return job, cfg, runs, nil
}

// toRun makes one candidate's rows into rounds of its timed metrics, the
// ones the sequential test judges; a round missing a side is left out.
func toRun(name string, rows []store.BenchSample) benchRun {
	r := benchRun{name: name}
	type key struct {
		bench string
		round int
	}
	vals := map[key]*stats.Pair{}
	last := -1
	for _, s := range rows {
		if !evaluator.TimedUnit(s.Unit) {
			continue
		}
		if !slices.Contains(r.names, s.Benchmark) {
			r.names = append(r.names, s.Benchmark)
		}
		k := key{s.Benchmark, s.Round}
		if vals[k] == nil {
			vals[k] = &stats.Pair{}
		}
		if s.Side == "base" {
			vals[k].Base = s.Value
		} else {
			vals[k].Cand = s.Value
		}
		last = max(last, s.Round)
	}
	for round := 0; round <= last; round++ {
		pairs := make([]stats.Pair, len(r.names))
		for b, name := range r.names {
			p := vals[key{name, round}]
			if p == nil || p.Base <= 0 || p.Cand <= 0 {
				return r
			}
			pairs[b] = *p
		}
		r.rounds = append(r.rounds, pairs)
	}
	return r
}

// replayed is one estimate of the replay: at a time, what the ETA said was
// left and what was.
type replayed struct {
	at, said, left time.Duration
}

// replay feeds runs through an ETA for a job with cfg's limits, at the
// fixed pace, and returns at every tenth of a second of the benchmark
// phase what a progress line would show: the estimate at the latest event,
// counted down since (as bench/eta's live measure reads the lines); -1
// before the first estimate.
func replay(cfg jobConfig, runs []benchRun, history []evaluator.PastBenchmark) []replayed {
	const (
		pair  = time.Second
		setup = time.Second
	)
	opts := evaluator.Options{Parallel: 1, MinPairs: cfg.MinPairs, MaxPairs: cfg.MaxPairs, MinSpeedup: cfg.MinSpeedup / 100}
	e := evaluator.NewETA(opts)
	seq := judgeOf(cfg)
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	type stamped struct {
		at time.Duration
		ev evaluator.Event
	}
	evs := []stamped{{0, evaluator.Event{Kind: evaluator.EventJobStart, Total: len(runs), History: history}},
		{0, evaluator.Event{Kind: evaluator.EventPhase, Phase: "behavior"}}}
	for _, r := range runs {
		evs = append(evs, stamped{0, evaluator.Event{Kind: evaluator.EventStart, Phase: "behavior", Candidate: r.name}},
			stamped{0, evaluator.Event{Kind: evaluator.EventTested, Candidate: r.name}})
	}
	evs = append(evs, stamped{0, evaluator.Event{Kind: evaluator.EventPhase, Phase: "benchmark"}})
	at := time.Duration(0)
	for i, r := range runs {
		evs = append(evs, stamped{at, evaluator.Event{Kind: evaluator.EventStart, Phase: "benchmark", Candidate: r.name}})
		at += setup - pair
		for n := 1; n <= len(r.rounds); n++ {
			at += pair
			evs = append(evs, stamped{at, evaluator.Event{Kind: evaluator.EventSample, Candidate: r.name, BaseSample: pair / 2,
				Forecast: seq.Forecast(r.names, r.rounds[:n]), ForecastUnchanged: seq.ForecastUnchanged(r.names, r.rounds[:n])}})
		}
		evs = append(evs, stamped{at, evaluator.Event{Kind: evaluator.EventDone, Candidate: r.name, Done: i + 1}})
	}
	end := at
	var out []replayed
	next := 0
	said, saidAt := time.Duration(-1), time.Duration(0)
	for t := time.Duration(0); t < end; t += 100 * time.Millisecond {
		for next < len(evs) && evs[next].at <= t {
			e.Observe(evs[next].ev, start.Add(evs[next].at))
			if est, ok := e.Estimate(start.Add(evs[next].at)); ok {
				said, saidAt = est.Left, evs[next].at
			}
			next++
		}
		shown := said
		if said >= 0 {
			shown = max(0, said-(t-saidAt))
		}
		out = append(out, replayed{at: t, said: shown, left: end - t})
	}
	return out
}

// reportReplay prints the replay's measure: the share of the benchmark
// phase during which the ETA was within 1.5× of the time left, and the
// median ratio of the two.
func reportReplay(w io.Writer, job store.Job, cfg jobConfig, runs []benchRun) {
	fmt.Fprintf(w, "job %s: %d benchmarks, pairs", job.ID, len(runs))
	for _, r := range runs {
		fmt.Fprintf(w, " %d", len(r.rounds))
	}
	fmt.Fprintf(w, " (min %d, max %d)\n", cfg.MinPairs, cfg.MaxPairs)
	in, shown, median := share(replay(cfg, runs, nil))
	if shown == 0 {
		fmt.Fprintln(w, "no estimate")
		return
	}
	fmt.Fprintf(w, "ETA within 1.5× for %.0f%% of the benchmark phase (%d of %d tenths of a second), median said / left %.2f\n",
		100*float64(in)/float64(shown), in, shown, median)
}

// share counts a replay's estimates: those within 1.5× of the time left,
// those shown, and the median of said / left over them.
func share(est []replayed) (in, shown int, median float64) {
	var ratios []float64
	for _, r := range est {
		if r.said < 0 {
			continue
		}
		shown++
		ratios = append(ratios, r.said.Seconds()/r.left.Seconds())
		if within(r.said, r.left) {
			in++
		}
	}
	if shown == 0 {
		return 0, 0, 0
	}
	slices.Sort(ratios)
	return in, shown, ratios[len(ratios)/2]
}
