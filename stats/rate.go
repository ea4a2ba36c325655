package stats

import "math"

// Wilson returns the Wilson score 95% interval of a rate seen k times in n
// trials: the interval that the harnesses print beside an A/A false-positive
// rate. It is NaN, NaN when n is 0.
func Wilson(k, n int) (lo, hi float64) {
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	const z = 1.96
	p, nf := float64(k)/float64(n), float64(n)
	centre := p + z*z/(2*nf)
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf))
	d := 1 + z*z/nf
	return max(0, (centre-half)/d), min(1, (centre+half)/d)
}
