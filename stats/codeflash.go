package stats

import "slices"

// CodeflashRule is codeflash's published acceptance rule, the baseline
// that this package's method is measured against. The runtime of each side
// is its minimum over loops, and the gain is (base-cand)/cand. The
// candidate is accepted when the gain exceeds threshold (codeflash uses
// 0.05). In codeflash the baseline loops are
// measured once, before any candidate runs; that protocol is the caller's.
// It returns false when either side has no loops or a minimum that is not
// positive.
func CodeflashRule(baseLoops, candLoops []float64, threshold float64) bool {
	if len(baseLoops) == 0 || len(candLoops) == 0 {
		return false
	}
	b, c := slices.Min(baseLoops), slices.Min(candLoops)
	if !(b > 0) || !(c > 0) {
		return false
	}
	return (b-c)/c > threshold
}
