package main

import (
	"slices"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/evaluator/stats"
)

// The quieter machine (-quiet K, with -store or -history): a stored job's
// pairs as a machine with K times their spread would have measured them.
// Each sample is moved toward the median of its side and benchmark over
// the candidate's rounds, to K of its distance from it, so the change
// each candidate makes stays and the noise shrinks; each benchmark is
// then cut at the first look that settles on the quieter pairs, as the
// judge would have stopped there. A benchmark that ran to the cap may
// settle early; one that settled stays where it was (the pairs past it
// were never measured). It lets jobs measured on a noisy machine, where
// most benchmarks run to the cap, stand in for a quiet one's, where most
// settle at their first claims: an ETA is tried on both.

// quieter is runs at k times their spread, cut where they then settle,
// for a job with cfg's limits. k is in (0, 1]; at 1, runs as they are.
func quieter(cfg jobConfig, runs []benchRun, k float64) []benchRun {
	if k >= 1 {
		return runs
	}
	seq := judgeOf(cfg)
	out := make([]benchRun, len(runs))
	for i, r := range runs {
		rounds := make([][]stats.Pair, len(r.rounds))
		for n := range rounds {
			rounds[n] = slices.Clone(r.rounds[n])
		}
		for b := range r.names {
			base, cand := make([]float64, len(rounds)), make([]float64, len(rounds))
			for n, round := range rounds {
				base[n], cand[n] = round[b].Base, round[b].Cand
			}
			mb, mc := stats.Median(base), stats.Median(cand)
			for _, round := range rounds {
				round[b].Base = mb + k*(round[b].Base-mb)
				round[b].Cand = mc + k*(round[b].Cand-mc)
			}
		}
		for n := max(seq.MinPairs, 1); n < len(rounds); n++ {
			if seq.Look(r.names, rounds[:n]).Settled {
				rounds = rounds[:n]
				break
			}
		}
		out[i] = benchRun{name: r.name, names: r.names, rounds: rounds}
	}
	return out
}

// judgeOf is the sequential test of a job with cfg's limits, the
// defaults filled in as the job fills them.
func judgeOf(cfg jobConfig) stats.Sequential {
	opts := evaluator.Options{MinPairs: cfg.MinPairs, MaxPairs: cfg.MaxPairs, MinSpeedup: cfg.MinSpeedup / 100}
	e := evaluator.NewETA(opts)
	seq := stats.Sequential{MinPairs: e.MinPairs, MaxPairs: e.MaxPairs, Alpha: evaluator.DefaultAlpha, MinSpeedup: opts.MinSpeedup}
	if seq.MinSpeedup == 0 {
		seq.MinSpeedup = evaluator.DefaultMinSpeedup
	}
	return seq
}
