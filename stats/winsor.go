package stats

import (
	"math"
	"slices"
)

// winsorK is how many robust standard deviations (1.4826 × MAD) from its
// median a benchmark's log-ratio may lie before it is pulled in, when
// benchmarks are averaged within a round.
const winsorK = 3

// winsorizedMeans returns, for each round r, the mean over benchmarks b of
// d[b][r], each first clamped to its benchmark's median ± winsorK robust
// standard deviations.
//
// Without it, one bad sample of one benchmark (a page-fault storm that makes
// a run 2× slower) moves its whole round. With three benchmarks a sixth of
// the rounds carry such a sample. The rank test then sees a sixth of its
// data as outliers, where each benchmark alone has a twentieth. Clamping
// gives back most of the power averaging should bring. The price: the
// clamp's centre and width are estimated from the data, so the signed rank
// interval of the means is no longer exactly of its nominal level. The
// simulation test measures the false-positive rate with it. With one
// benchmark nothing is clamped: the ranks alone bound an outlier's
// influence, and the interval stays exact.
func winsorizedMeans(d [][]float64) []float64 {
	n := len(d[0])
	g := make([]float64, n)
	tmp := make([]float64, n)
	for _, x := range d {
		med := median(x, tmp)
		for i, v := range x {
			tmp[i] = math.Abs(v - med)
		}
		mad := median(tmp, tmp)
		lo, hi := math.Inf(-1), math.Inf(1)
		if mad > 0 {
			lo, hi = med-winsorK*1.4826*mad, med+winsorK*1.4826*mad
		}
		for r, v := range x {
			g[r] += min(max(v, lo), hi)
		}
	}
	for r := range g {
		g[r] /= float64(len(d))
	}
	return g
}

// Median returns the median of xs, 0 for none. xs is not changed.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return median(xs, make([]float64, len(xs)))
}

// median returns the median of x, using tmp (len(x) or more; it may be x
// itself) as scratch space.
func median(x, tmp []float64) float64 {
	tmp = tmp[:len(x)]
	copy(tmp, x)
	slices.Sort(tmp)
	n := len(tmp)
	return (tmp[(n-1)/2] + tmp[n/2]) / 2
}
