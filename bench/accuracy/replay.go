package main

import (
	"math"
	"math/rand/v2"

	"github.com/optimizer-dev/optimizer/stats"
)

// Replaying A/A trials under other orders. In an A/A trial both sides run
// the same code, so a sample's value does not depend on which side it was
// labelled. The two samples of a pair may be relabelled at will, and our
// statistics run again on the result. That shows what the order within a
// pair does to false positives on this machine's real noise, from the same
// samples. Only pairs that were measured can be replayed. A trial the real
// run stopped early (futility) is cut there, and counts as no claim if the
// replay has not settled by then. The replay uses the CLI's defaults (5%
// minimum speedup, 6–30 pairs, alpha 0.05).

// An order says, for each round, whether base was the first of the pair.
type order struct {
	Name  string
	Reps  int // replays of every trial; more than 1 for random orders
	first func(rng *rand.Rand) func(round int) bool
}

var orders = []order{
	{"ABBA (how runs before 2026-11-23 measured)", 1, func(*rand.Rand) func(int) bool { return func(r int) bool { return r%2 == 0 } }},
	{"BAAB (ABBA mirrored)", 1, func(*rand.Rand) func(int) bool { return func(r int) bool { return r%2 == 1 } }},
	{"AB AB (base always first)", 1, func(*rand.Rand) func(int) bool { return func(int) bool { return true } }},
	{"random order in each pair", 200, func(rng *rand.Rand) func(int) bool {
		flips := make([]bool, stats.DefaultMaxPairs)
		for i := range flips {
			flips[i] = rng.IntN(2) == 0
		}
		return func(r int) bool { return flips[r%len(flips)] }
	}},
}

// replayed is the outcome of replaying every A/A trial under one order.
type replayed struct {
	Order                 order
	Replays               int
	Faster, Slower, Mixed int
}

// replayAA replays the A/A trials' raw series under every order.
func replayAA(series [][]float64) []replayed {
	var out []replayed
	for i, o := range orders {
		rng := rand.New(rand.NewPCG(uint64(i), 7))
		r := replayed{Order: o}
		for range o.Reps {
			for _, s := range series {
				r.Replays++
				switch replayOne(s, o.first(rng)) {
				case stats.Faster:
					r.Faster++
				case stats.Slower:
					r.Slower++
				case stats.Mixed:
					r.Mixed++
				}
			}
		}
		out = append(out, r)
	}
	return out
}

// replayOne judges one trial's series, in the order the samples were taken,
// with base first in round r when baseFirst(r). As the evaluator does, it
// looks after every round from MinPairs, and stops when settled.
func replayOne(series []float64, baseFirst func(int) bool) stats.Outcome {
	seq := stats.Sequential{MinSpeedup: stats.DefaultMinSpeedup}
	n := min(len(series)/2, stats.DefaultMaxPairs)
	var (
		rounds [][]stats.Pair
		dec    stats.Decision
	)
	for r := range n {
		p := stats.Pair{Base: series[2*r], Cand: series[2*r+1]}
		if !baseFirst(r) {
			p.Base, p.Cand = p.Cand, p.Base
		}
		rounds = append(rounds, []stats.Pair{p})
		if r+1 < stats.DefaultMinPairs {
			continue
		}
		if dec = seq.Look(nil, rounds); dec.Settled {
			return dec.Verdict
		}
	}
	if n == stats.DefaultMaxPairs {
		return dec.Verdict
	}
	return stats.NotFaster
}

// noiseShape is how the A/A noise behaves in time. It is the lag-1
// autocorrelation of ln(sample) within a trial, in the order samples were
// taken, and of the pairs' log-ratios from one round to the next. The
// signed-rank test assumes the pairs independent. In ABBA order, a burst of
// load that spans the end of one round and the start of the next falls on
// the same side of both. That makes their log-ratios alike.
type noiseShape struct {
	Samples, Pairs float64
}

func shapeOf(aa []trial) noiseShape {
	var samples, pairs [][]float64
	for _, t := range aa {
		if t.Series != nil {
			logs := make([]float64, len(t.Series))
			for i, v := range t.Series {
				logs[i] = math.Log(v)
			}
			samples = append(samples, logs)
		}
		if len(t.LogRatios) > 1 {
			pairs = append(pairs, t.LogRatios)
		}
	}
	return noiseShape{Samples: lag1(samples), Pairs: lag1(pairs)}
}

// lag1 is the lag-1 autocorrelation pooled over series, each centred on its
// own mean.
func lag1(series [][]float64) float64 {
	var num, den float64
	for _, s := range series {
		m := 0.0
		for _, x := range s {
			m += x
		}
		m /= float64(len(s))
		for i, x := range s {
			den += (x - m) * (x - m)
			if i > 0 {
				num += (x - m) * (s[i-1] - m)
			}
		}
	}
	if den == 0 {
		return nan
	}
	return num / den
}
