package stats

import (
	"fmt"
	"math"
	"slices"
)

// Beside compares the metrics reported beside the judged one. They are
// averages over a benchmark's iterations, such as Go's B/op and allocs/op,
// or the time when another metric is judged. metrics[i] holds one metric's
// pairs. Each metric gets the estimate and interval time gets
// (Hodges–Lehmann, signed-rank), and a verdict of its own. It is Faster
// when the whole interval lies above 1 (the candidate's value is
// significantly lower), Slower when it lies below 1 (significantly higher),
// NotFaster otherwise. There is no threshold: any significant change is
// one.
//
// Each metric is a claim of its own, so the family is corrected by Tarone's
// rule for discrete tests. A metric whose pairs could not reach the
// corrected level under any signs is left out of the count. Such a metric
// has every pair tied, as an exact count at a fixed iteration count does.
// The others are tested at alpha/K, K being their number. The chance of any
// false claim over the family is then at most alpha. A bound that the pairs
// are too few to attain at that level backs no claim.
//
// Values may be zero (no allocation): see Positive. A metric without pairs
// gets an empty, not-faster estimate.
func Beside(metrics [][]Pair, alpha float64) ([]Estimate, error) {
	if err := checkAlpha(alpha); err != nil {
		return nil, err
	}
	ds := make([][]float64, len(metrics))
	for i, pairs := range metrics {
		if len(pairs) == 0 {
			continue
		}
		d, err := logRatios(Positive(pairs))
		if err != nil {
			return nil, fmt.Errorf("metric %d: %w", i+1, err)
		}
		ds[i] = d
	}
	level := alpha / float64(taroneCount(ds, alpha))
	out := make([]Estimate, len(metrics))
	var buf []float64
	for i, d := range ds {
		out[i].Verdict = NotFaster
		if len(d) == 0 {
			continue
		}
		tail := level / 2
		var errs [2]float64
		out[i], errs, buf = estimate(d, tail, tail, buf)
		c := claims{low: errs[0] <= tail*(1+1e-9), high: errs[1] <= tail*(1+1e-9)}
		out[i].Verdict = NotFaster
		switch u := c.usable(out[i]); {
		case u.Low > 1:
			out[i].Verdict = Faster
		case u.High < 1:
			out[i].Verdict = Slower
		}
	}
	return out, nil
}

// taroneCount is K of Tarone's rule: the smallest K such that at most K of
// the metrics could reach a two-sided level of alpha/K, at least 1.
func taroneCount(ds [][]float64, alpha float64) int {
	minP := make([]float64, 0, len(ds))
	for _, d := range ds {
		minP = append(minP, minSignedRankP(d))
	}
	for k := 1; k < len(minP); k++ {
		reach := 0
		for _, p := range minP {
			if p <= alpha/float64(k) {
				reach++
			}
		}
		if reach <= k {
			return k
		}
	}
	return max(len(minP), 1)
}

// minSignedRankP is the smallest two-sided signed-rank p-value that d's
// magnitudes allow, whatever its signs: all n nonzero values on one side,
// 2·2⁻ⁿ. Zeros are dropped, as signedRankP drops them.
func minSignedRankP(d []float64) float64 {
	n := 0
	for _, x := range d {
		if x != 0 {
			n++
		}
	}
	return min(1, math.Ldexp(1, 1-n))
}

// Positive returns pairs with every zero value replaced by half the
// smallest positive value among them, and at most 1/2. Then log-ratios
// exist, and a change from none is a large, finite one. Averages such as
// allocs/op are zero when nothing is allocated, and Go prints them in whole
// units, so 1/2 is half their resolution. So 0 against 0 is no change, 4
// against 2 is 2×, and 0 against 1 is 2×. Other values are left as they
// are, for the caller's checks.
func Positive(pairs []Pair) []Pair {
	least := 0.5
	zero := false
	for _, p := range pairs {
		for _, v := range [2]float64{p.Base, p.Cand} {
			if v > 0 && v < 2*least {
				least = v / 2
			}
			zero = zero || v == 0
		}
	}
	if !zero {
		return pairs
	}
	out := slices.Clone(pairs)
	for i := range out {
		if out[i].Base == 0 {
			out[i].Base = least
		}
		if out[i].Cand == 0 {
			out[i].Cand = least
		}
	}
	return out
}
