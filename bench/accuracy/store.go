package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/optimizer-dev/optimizer/store"
)

var nan = math.NaN()

// samples are one trial's timed samples in complete rounds, in seconds per
// op: base[b][r] and cand[b][r] for benchmark benches[b] in round r.
type samples struct {
	benches    []string
	base, cand [][]float64
}

func (s samples) rounds() int {
	if len(s.base) == 0 {
		return 0
	}
	return len(s.base[0])
}

// aligned returns the base samples of benches in that order, nil for a
// benchmark s does not have.
func (s samples) aligned(benches []string) [][]float64 {
	out := make([][]float64, len(benches))
	for i, b := range benches {
		if j := slices.Index(s.benches, b); j >= 0 {
			out[i] = s.base[j]
		}
	}
	return out
}

// logRatios returns each round's mean over benchmarks of ln(cand/base).
func (s samples) logRatios() []float64 {
	out := make([]float64, s.rounds())
	for r := range out {
		for b := range s.benches {
			out[r] += math.Log(s.cand[b][r] / s.base[b][r])
		}
		out[r] /= float64(len(s.benches))
	}
	return out
}

// seconds converts a timed sample to seconds per op; ok is false for a unit
// that is not a time (B/op, allocs/op), which the evaluator does not judge
// by default.
func seconds(unit string, v float64) (float64, bool) {
	switch unit {
	case "sec/op", "sec":
		return v, true
	case "ns/op":
		return v * 1e-9, true
	}
	return 0, false
}

// toSamples keeps the timed rows of a trial, in the rounds where every
// benchmark has both sides.
func toSamples(rows []store.BenchSample) samples {
	type key struct {
		bench string
		round int
	}
	vals := map[key]*[2]float64{}
	var benches []string
	maxRound := -1
	for _, r := range rows {
		v, ok := seconds(r.Unit, r.Value)
		if !ok {
			continue
		}
		k := key{r.Benchmark, r.Round}
		p := vals[k]
		if p == nil {
			p = &[2]float64{nan, nan}
			vals[k] = p
		}
		if r.Side == "base" {
			p[0] = v
		} else {
			p[1] = v
		}
		if !slices.Contains(benches, r.Benchmark) {
			benches = append(benches, r.Benchmark)
		}
		maxRound = max(maxRound, r.Round)
	}
	sort.Strings(benches)
	s := samples{benches: benches, base: make([][]float64, len(benches)), cand: make([][]float64, len(benches))}
rounds:
	for r := 0; r <= maxRound; r++ {
		for _, b := range benches {
			p := vals[key{b, r}]
			if p == nil || math.IsNaN(p[0]) || math.IsNaN(p[1]) {
				continue rounds
			}
		}
		for i, b := range benches {
			p := vals[key{b, r}]
			s.base[i] = append(s.base[i], p[0])
			s.cand[i] = append(s.cand[i], p[1])
		}
	}
	return s
}

// A trial is one candidate of one job, as the store recorded it.
type trial struct {
	Job, Name, Kind string
	Seq             int
	Verdict         string // the evaluator's; "winner" is read as faster
	Speedup         float64
	Low, High       float64
	Pairs           int
	Settled         bool
	Sigma           float64   // robust spread of the paired log-ratios: 1.4826 × MAD
	LogRatios       []float64 // per round, ln(cand/base)
	Series          []float64 // timed samples in the order taken; nil with several benchmarks
	Codeflash       codeflashCalls
}

// readTrials reads every trial candidate (named tNNN-KIND) of every job in
// the store at path, oldest job first.
func readTrials(ctx context.Context, path string) ([]trial, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	db, err := store.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	defer db.Close()
	jobs, err := db.Jobs(ctx, 0)
	if err != nil {
		return nil, err
	}
	slices.Reverse(jobs)
	var out []trial
	for _, j := range jobs {
		ts, err := jobTrials(ctx, db, j.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, ts...)
	}
	return out, nil
}

// jobTrials reads the trials of one job, in the order they were measured.
func jobTrials(ctx context.Context, db *store.DB, jobID string) ([]trial, error) {
	cands, err := db.Candidates(ctx, jobID)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(cands, func(a, b store.Candidate) int { return a.Seq - b.Seq })
	var (
		out     []trial
		all     []samples
		jobBase samples
	)
	for _, c := range cands {
		m := trialName.FindStringSubmatch(c.Name)
		if m == nil {
			continue
		}
		rows, err := db.BenchSamples(ctx, jobID, c.Name)
		if err != nil {
			return nil, err
		}
		seq, _ := strconv.Atoi(m[1])
		t := trial{Job: jobID, Name: c.Name, Kind: m[2], Seq: seq, Verdict: c.Verdict,
			Speedup: c.Speedup, Low: c.CILow, High: c.CIHigh, Pairs: c.Pairs, Settled: settled(c.Result)}
		if t.Verdict == "winner" {
			t.Verdict = "faster"
		}
		s := toSamples(rows)
		t.Series = seriesOf(rows)
		if s.rounds() > 0 && jobBase.rounds() == 0 {
			jobBase = s
		}
		out, all = append(out, t), append(all, s)
	}
	for i := range out {
		s := all[i]
		if s.rounds() == 0 {
			continue
		}
		out[i].LogRatios = s.logRatios()
		out[i].Sigma = robustSigma(out[i].LogRatios)
		out[i].Codeflash = codeflash(s, jobBase)
	}
	return out, nil
}

// settled reads from a candidate's stored result whether the evaluator
// settled its verdict, rather than stopping at the pair cap or the budget.
func settled(result []byte) bool {
	var r struct {
		Note string `json:"note"`
	}
	if json.Unmarshal(result, &r) != nil {
		return true
	}
	return !strings.HasPrefix(r.Note, "not settled")
}

// robustSigma is 1.4826 times the median absolute deviation of xs: the
// standard deviation for normal data, undisturbed by a few outliers.
func robustSigma(xs []float64) float64 {
	if len(xs) < 2 {
		return nan
	}
	m := median(xs)
	dev := make([]float64, len(xs))
	for i, x := range xs {
		dev[i] = math.Abs(x - m)
	}
	return 1.4826 * median(dev)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return nan
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// seriesOf returns the timed samples of a one-benchmark trial in the order
// they were taken, each round's two samples next to each other. It returns
// nil if the trial has several benchmarks or an incomplete round.
func seriesOf(rows []store.BenchSample) []float64 {
	var (
		out    []float64
		rounds []int
	)
	for _, r := range rows { // ordered by run_order
		v, ok := seconds(r.Unit, r.Value)
		if !ok {
			continue
		}
		out, rounds = append(out, v), append(rounds, r.Round)
	}
	if len(out)%2 != 0 {
		return nil
	}
	for i := 0; i < len(out); i += 2 {
		if rounds[i] != rounds[i+1] || rounds[i] != i/2 {
			return nil
		}
	}
	return out
}
