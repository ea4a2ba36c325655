package main

import (
	"math"
)

// A summary is what the trials of one kind add up to.
type summary struct {
	Kind     kind
	Trials   int            // trials with samples
	Verdicts map[string]int // faster (winner included), slower, not-faster, mixed, or another
	Errors   int            // trials without samples (failed, or cut off)
	Settled  int

	PairsSum, PairsMax int
	FasterWithin8      int // called faster after at most 8 pairs

	Speedup, Low, High float64 // medians over trials of our estimate and bounds
	Pooled             float64 // exp(-median of every pair's ln(cand/base)): the change's real ratio
	Sigma              float64 // median over trials of the pairs' robust spread

	CodeflashFirst, CodeflashJob, CodeflashAll int // trials the rule accepts
}

// Wrong is the number of A/A trials given a claim: faster, slower or mixed.
func (s summary) Wrong() int {
	return s.Verdicts["faster"] + s.Verdicts["slower"] + s.Verdicts["mixed"]
}

// Hits is the number of trials our method calls faster.
func (s summary) Hits() int { return s.Verdicts["faster"] }

func (s summary) MeanPairs() float64 { return float64(s.PairsSum) / float64(s.Trials) }

// summarise groups trials by kind, in the order of kinds.
func summarise(trials []trial) []summary {
	var out []summary
	for _, k := range kinds {
		var ts []trial
		for _, t := range trials {
			if t.Kind == k.Name {
				ts = append(ts, t)
			}
		}
		if len(ts) > 0 {
			out = append(out, summariseKind(k, ts))
		}
	}
	return out
}

func summariseKind(k kind, ts []trial) summary {
	s := summary{Kind: k, Verdicts: map[string]int{}}
	var sp, lo, hi, sig, pooled []float64
	for _, t := range ts {
		if len(t.LogRatios) == 0 {
			s.Errors++
			continue
		}
		s.Trials++
		s.Verdicts[t.Verdict]++
		if t.Settled {
			s.Settled++
		}
		s.PairsSum += t.Pairs
		s.PairsMax = max(s.PairsMax, t.Pairs)
		if t.Verdict == "faster" && t.Pairs <= 8 {
			s.FasterWithin8++
		}
		sp, lo, hi = append(sp, t.Speedup), append(lo, t.Low), append(hi, t.High)
		if !math.IsNaN(t.Sigma) {
			sig = append(sig, t.Sigma)
		}
		pooled = append(pooled, t.LogRatios...)
		s.CodeflashFirst += b2i(t.Codeflash.First)
		s.CodeflashJob += b2i(t.Codeflash.Job)
		s.CodeflashAll += b2i(t.Codeflash.All)
	}
	s.Speedup, s.Low, s.High = median(sp), median(lo), median(hi)
	s.Sigma = median(sig)
	s.Pooled = math.Exp(-median(pooled))
	return s
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
