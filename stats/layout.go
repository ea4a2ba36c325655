package stats

import (
	"math"
	"slices"
)

// MinLayoutPairs is the number of pairs each layout needs before
// LayoutSensitive can find anything: at 4 against 4 the smallest two-sided
// rank-sum p is 2/70, under 0.05.
const MinLayoutPairs = 4

// LayoutSensitive reports whether a speedup rests on one code layout. Its a
// and b are the per-pair log-ratios (log cand − log base, as Pair.LogRatio)
// of the pairs run in each of two layouts. It is true when the median
// speedup of one layout clears 1+minSpeedup and the other's does not. The
// two layouts' log-ratios must also differ by an exact two-sided Wilcoxon
// rank-sum test at level alpha. Then the effect changed with the layout by
// more than the pairs' noise explains. It also returns each layout's median
// speedup.
func LayoutSensitive(a, b []float64, minSpeedup, alpha float64) (bool, [2]float64) {
	sa, sb := math.Exp(-Median(a)), math.Exp(-Median(b))
	speedups := [2]float64{sa, sb}
	if len(a) < MinLayoutPairs || len(b) < MinLayoutPairs {
		return false, speedups
	}
	if (sa >= 1+minSpeedup) == (sb >= 1+minSpeedup) {
		return false, speedups
	}
	return RankSumP(a, b) <= alpha, speedups
}

// RankSumP is the exact two-sided p-value of the Wilcoxon rank-sum
// (Mann-Whitney) test of x against y. It is the chance of a U statistic as
// far from its mean as the observed one. That assumes every split of the
// pooled values into groups of len(x) and len(y) is equally likely. A tie
// between the groups counts one half toward U. The p-value of a non-integer
// U is taken at the integer further from the mean, so that ties never make
// it smaller.
func RankSumP(x, y []float64) float64 {
	n, m := len(x), len(y)
	if n == 0 || m == 0 {
		return 1
	}
	u2 := 0 // twice U: the pairs (x[i], y[j]) with x[i] > y[j], ties counting one half
	for _, xi := range x {
		for _, yj := range y {
			switch {
			case xi > yj:
				u2 += 2
			case xi == yj:
				u2++
			}
		}
	}
	mean2 := n * m // twice the mean of U
	dist := rankSumNull(n, m)
	var tail float64
	if u2 <= mean2 {
		for u := 0; u <= u2/2; u++ { // floor: away from the mean
			tail += dist[u]
		}
	} else {
		for u := (u2 + 1) / 2; u <= n*m; u++ { // ceiling: away from the mean
			tail += dist[u]
		}
	}
	return min(1, 2*tail)
}

// rankSumNull is the null distribution of U for groups of n and m: the
// chance of each value 0..n*m. It builds it by the recursion on the largest
// pooled value, which belongs to the first group (adding m to U) with
// chance n/(n+m), else to the second.
func rankSumNull(n, m int) []float64 {
	// p[j] is the distribution for (i, j) groups as i grows.
	p := make([][]float64, m+1)
	for j := range p {
		p[j] = []float64{1} // i = 0: U is 0
	}
	for i := 1; i <= n; i++ {
		next := make([][]float64, m+1)
		next[0] = []float64{1} // j = 0: U is 0
		for j := 1; j <= m; j++ {
			d := make([]float64, i*j+1)
			wi, wj := float64(i)/float64(i+j), float64(j)/float64(i+j)
			for u, q := range p[j] { // (i-1, j): the largest is x's, U gains j
				d[u+j] += wi * q
			}
			for u, q := range next[j-1] { // (i, j-1): the largest is y's
				d[u] += wj * q
			}
			next[j] = d
		}
		p = next
	}
	return slices.Clone(p[m])
}
