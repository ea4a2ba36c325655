package main

import "github.com/optimizer-dev/optimizer/stats"

// Codeflash's rule, as it decides (codeflash/result/critic.py,
// speedup_critic, and docs "How Codeflash measures code runtime"):
//   - each side's runtime is the sum over inputs of the minimum over loops;
//   - the gain is (base-cand)/cand;
//   - the candidate is accepted when the gain exceeds a noise floor of 5%.
//
// The floor is tripled when the original runtime is under 10µs; not here,
// where the fixture's benchmark takes about 200µs an op. It is doubled on
// CI; not applied, as this is not CI. The baseline is measured once, before
// any candidate; each candidate is then looped on its own.
const (
	codeflashThreshold = 0.05 // MIN_IMPROVEMENT_THRESHOLD
	codeflashShort     = 10e-6
)

// How codeflash's protocol maps onto our samples. One of our samples is one
// process running the benchmark for the calibrated iteration count; its
// value is the mean time per op over that run. That sample is codeflash's
// "loop", and each benchmark is one of its "inputs". Three readings are
// computed from the same samples, from the most faithful to the kindest:
//
//   - first: the trial's rounds are cut in two halves. The baseline is the
//     minimum of the base samples of the first half, and the candidate the
//     minimum of the candidate samples of the second half. The baseline is
//     measured first, then the candidate, with as many loops each: the
//     protocol of codeflash, within the time of one of our trials.
//   - job: the baseline is the minimum of all base samples of the job's
//     first trial, measured once before every later trial. That is exactly
//     how codeflash measures the original once per function, and the
//     baseline is shared by every candidate of the job. The candidate is
//     the minimum of all its samples. The job's first trial reads its own
//     base samples, so for it this is the "all" reading.
//   - all: the minimum of all base samples against the minimum of all
//     candidate samples of the trial, interleaved with them. This is not
//     codeflash's protocol; it gives its rule our pairing's protection from
//     drift, to separate the weakness of the minimum from that of the
//     protocol.
//
// None of the readings gives codeflash fewer loops than our method used on
// the same trial, except "first". That one gives each side half: the price
// of measuring one side after the other in the same time.

// codeflashCalls are the rule's decisions for one trial, and the gains
// behind them (NaN where a reading has no samples).
type codeflashCalls struct {
	First, Job, All             bool
	FirstGain, JobGain, AllGain float64
}

// codeflash applies the rule to a trial's samples s, with jobBase the
// samples of the job's first trial.
func codeflash(s, jobBase samples) codeflashCalls {
	var c codeflashCalls
	n := s.rounds()
	h := n / 2
	c.First, c.FirstGain = codeflashAccept(minSum(s.base, 0, h), minSum(s.cand, n-h, n))
	jb := jobBase.aligned(s.benches)
	c.Job, c.JobGain = codeflashAccept(minSum(jb, 0, jobBase.rounds()), minSum(s.cand, 0, n))
	c.All, c.AllGain = codeflashAccept(minSum(s.base, 0, n), minSum(s.cand, 0, n))
	return c
}

// codeflashAccept applies the rule to the two runtimes, in seconds.
func codeflashAccept(base, cand float64) (bool, float64) {
	if !(base > 0) || !(cand > 0) {
		return false, nan
	}
	threshold := codeflashThreshold
	if base < codeflashShort {
		threshold *= 3
	}
	return stats.CodeflashRule([]float64{base}, []float64{cand}, threshold), (base - cand) / cand
}

// minSum is the sum over benchmarks of the minimum over rounds [lo, hi) of
// vals[bench][round]: codeflash's runtime. It is NaN when a benchmark has no
// value in range.
func minSum(vals [][]float64, lo, hi int) float64 {
	if hi <= lo || len(vals) == 0 {
		return nan
	}
	sum := 0.0
	for _, v := range vals {
		if v == nil || hi > len(v) {
			return nan
		}
		m := v[lo]
		for _, x := range v[lo+1 : hi] {
			m = min(m, x)
		}
		sum += m
	}
	return sum
}
