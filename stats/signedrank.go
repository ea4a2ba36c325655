package stats

import (
	"math"
	"math/bits"
	"slices"
	"sync"
)

// maxExact is the largest sample size for which the signed-rank null
// distribution is computed exactly. Above it, the normal approximation is
// within far less than the alphas in use.
const maxExact = 200

// nullCache holds exact null distributions of the signed-rank statistic for
// untied data, by sample size. They are small (n(n+1)/2+1 values) and the
// same few sizes are asked for after every pair, so they are kept for the
// life of the process. Safe for concurrent use.
var nullCache struct {
	sync.Mutex
	cdf map[int][]float64
}

// nullCDF returns cdf with cdf[w] = P(T+ <= w) for the Wilcoxon signed-rank
// statistic T+ of n untied, non-zero values under the null hypothesis of a
// distribution symmetric about zero. It is exact for n <= maxExact and nil
// above. The caller must not modify the slice.
func nullCDF(n int) []float64 {
	if n > maxExact {
		return nil
	}
	nullCache.Lock()
	defer nullCache.Unlock()
	if cdf, ok := nullCache.cdf[n]; ok {
		return cdf
	}
	w := make([]int, n)
	for i := range w {
		w[i] = i + 1
	}
	cdf := weightedNull(w)
	if nullCache.cdf == nil {
		nullCache.cdf = map[int][]float64{}
	}
	nullCache.cdf[n] = cdf
	return cdf
}

// weightedNull returns the cumulative distribution of S = sum of the weights
// whose sign is positive, when each of the signs is an independent fair coin.
// With weights 1..n it is the signed-rank null distribution; with doubled
// mid-ranks it is the exact conditional distribution given the ties.
// Probabilities are carried (halved at each step) rather than counts, so
// nothing overflows.
func weightedNull(w []int) []float64 {
	total := 0
	for _, x := range w {
		total += x
	}
	p := make([]float64, total+1)
	p[0] = 1
	hi := 0
	for _, x := range w {
		hi += x
		for s := hi; s >= 0; s-- {
			v := p[s] / 2
			if s >= x {
				v += p[s-x] / 2
			}
			p[s] = v
		}
	}
	for s := 1; s <= total; s++ {
		p[s] += p[s-1]
	}
	return p
}

// criticalCount returns k, the number of Walsh averages to drop from one
// end of an interval from n values, for a one-sided error of at most tail.
// It also returns the error that bound actually has, P(T+ <= k). The bounds
// are W(k+1) and W(M-k) in 1-based order statistics of the M = n(n+1)/2
// Walsh averages. Even the extreme Walsh average (k = 0) may have a larger
// error than tail. Then k is 0 and that larger error is returned, and
// callers compare it with what they asked for.
func criticalCount(n int, tail float64) (k int, achieved float64) {
	if n <= 0 {
		return 0, 1
	}
	m := n * (n + 1) / 2
	if cdf := nullCDF(n); cdf != nil {
		// j counts the w with P(T+ <= w) <= tail; cdf is increasing.
		j := 0
		for j < m && cdf[j] <= tail {
			j++
		}
		if j == 0 {
			return 0, cdf[0]
		}
		return j - 1, cdf[j-1]
	}
	mean := float64(m) / 2
	sd := math.Sqrt(float64(n) * float64(n+1) * float64(2*n+1) / 24)
	z := normalQuantile(1 - tail)
	k = max(int(math.Floor(mean-z*sd-0.5)), 0)
	return k, normalCDF((float64(k) + 0.5 - mean) / sd)
}

// walsh fills buf with the Walsh averages (d[i]+d[j])/2, i <= j, in no
// particular order, and returns it, growing buf if needed.
func walsh(d []float64, buf []float64) []float64 {
	n := len(d)
	buf = slices.Grow(buf[:0], n*(n+1)/2)
	for i := range d {
		for j := i; j < n; j++ {
			buf = append(buf, (d[i]+d[j])/2)
		}
	}
	return buf
}

// hodgesLehmann returns the Hodges–Lehmann estimate of the centre of d (the
// median of its Walsh averages) and the Wilcoxon signed-rank bounds for it.
// The bound lo has a one-sided error of at most tailLo, and hi at most tailHi.
// It returns the errors they actually have too (see criticalCount). The
// interval [lo, hi] has confidence 1 - errLo - errHi. d must not be empty; buf
// is scratch space, returned for reuse.
func hodgesLehmann(d []float64, tailLo, tailHi float64, buf []float64) (centre, lo, hi, errLo, errHi float64, _ []float64) {
	w := walsh(d, buf)
	m := len(w)
	// Three order statistics, by selection rather than sorting: the
	// median first, then each bound within its half.
	h := m / 2
	selectK(w, h)
	centre = w[h]
	if m%2 == 0 {
		centre = (slices.Max(w[:h]) + w[h]) / 2
	}
	kLo, errLo := criticalCount(len(d), tailLo)
	kHi, errHi := criticalCount(len(d), tailHi)
	iLo, iHi := kLo, m-1-kHi
	if iLo > iHi {
		// Only tails near 1/2 cross: the interval shrinks to the centre.
		return centre, centre, centre, errLo, errHi, w
	}
	return centre, orderStat(w, h, iLo), orderStat(w, h, iHi), errLo, errHi, w
}

// orderStat returns the i-th smallest of w (0-based), where selectK(w, h)
// has already put the h smallest values in w[:h]. It reorders within each
// half only.
func orderStat(w []float64, h, i int) float64 {
	switch {
	case i < h:
		selectK(w[:h], i)
	case i > h:
		selectK(w[h+1:], i-h-1)
	}
	return w[i]
}

// selectK reorders x so that x[k] is its k-th smallest value (0-based), with
// nothing larger before it and nothing smaller after it. It is Hoare's
// quickselect with a median-of-three pivot, falling back to a sort if the
// partitions keep coming out lopsided.
func selectK(x []float64, k int) {
	budget := 2 * bits.Len(uint(len(x)))
	for len(x) > 16 {
		if budget == 0 {
			slices.Sort(x)
			return
		}
		budget--
		a, b, c := x[0], x[len(x)/2], x[len(x)-1]
		pivot := max(min(a, b), min(max(a, b), c))
		i, j := 0, len(x)-1
		for i <= j {
			for x[i] < pivot {
				i++
			}
			for x[j] > pivot {
				j--
			}
			if i <= j {
				x[i], x[j] = x[j], x[i]
				i++
				j--
			}
		}
		// Now x[:j+1] <= pivot <= x[i:], and x[j+1:i] == pivot.
		switch {
		case k <= j:
			x = x[:j+1]
		case k >= i:
			x, k = x[i:], k-i
		default:
			return
		}
	}
	slices.Sort(x)
}

// signedRankP returns the two-sided p-value of the Wilcoxon signed-rank test
// of "d is symmetric about zero". Zeros are dropped (Wilcoxon's convention).
// Tied magnitudes get mid-ranks, and the p-value is then exact conditional on
// the ties; above maxExact values it is the normal approximation with tie and
// continuity corrections.
func signedRankP(d []float64) float64 {
	type v struct {
		abs float64
		pos bool
	}
	vs := make([]v, 0, len(d))
	for _, x := range d {
		if x != 0 {
			vs = append(vs, v{math.Abs(x), x > 0})
		}
	}
	n := len(vs)
	if n == 0 {
		return 1
	}
	slices.SortFunc(vs, func(a, b v) int { return cmpFloat(a.abs, b.abs) })
	// Doubled mid-ranks are integers: ranks i+1..j+1 tied give i+j+2.
	w := make([]int, n)
	ties := false
	tieTerm := 0.0
	for i := 0; i < n; {
		j := i
		for j+1 < n && vs[j+1].abs == vs[i].abs {
			j++
		}
		if j > i {
			ties = true
			t := float64(j - i + 1)
			tieTerm += t*t*t - t
		}
		for k := i; k <= j; k++ {
			w[k] = i + j + 2
		}
		i = j + 1
	}
	s := 0 // doubled T+
	for i, x := range vs {
		if x.pos {
			s += w[i]
		}
	}
	if n <= maxExact {
		var cdf []float64
		if ties {
			cdf = weightedNull(w)
		} else {
			// Weights are 2,4,…,2n: T+ = s/2 with the cached distribution.
			cdf = nullCDF(n)
			s /= 2
		}
		lower := cdf[s]
		upper := 1.0
		if s > 0 {
			upper = 1 - cdf[s-1]
		}
		return min(1, 2*min(lower, upper))
	}
	t := float64(s) / 2
	nf := float64(n)
	mean := nf * (nf + 1) / 4
	sd := math.Sqrt(nf*(nf+1)*(2*nf+1)/24 - tieTerm/48)
	if sd == 0 {
		return 1
	}
	z := (math.Abs(t-mean) - 0.5) / sd
	return min(1, 2*(1-normalCDF(max(z, 0))))
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func normalCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// normalQuantile returns z with normalCDF(z) = p, for 0 < p < 1.
func normalQuantile(p float64) float64 { return -math.Sqrt2 * math.Erfcinv(2*p) }
