package stats

import (
	"fmt"
	"math"
)

// Exact compares an exact metric, such as allocs/op or B/op, between base and
// candidate. Such metrics do not vary from run to run (or barely: a map's
// growth can move B/op by a few bytes), so they are reported and an increase
// is flagged, never tested.
type Exact struct {
	// Base and Cand are the medians of each side's values.
	Base, Cand float64
	// Increased is true when the candidate's median is above base's.
	Increased bool
}

// CompareExact compares the values of an exact metric on each side. Values
// must be finite and not negative (0 allocs/op is common); the sides need
// not have as many values.
func CompareExact(base, cand []float64) (Exact, error) {
	var e Exact
	for i, side := range [2][]float64{base, cand} {
		if len(side) == 0 {
			return Exact{}, fmt.Errorf("%s side: %w", sideName(i), ErrEmpty)
		}
		for j, v := range side {
			if !(v >= 0) || math.IsInf(v, 0) {
				return Exact{}, fmt.Errorf("%s value %d, %v: %w", sideName(i), j+1, v, ErrNegative)
			}
		}
	}
	e.Base = median(base, make([]float64, len(base)))
	e.Cand = median(cand, make([]float64, len(cand)))
	e.Increased = e.Cand > e.Base
	return e, nil
}

func sideName(i int) string {
	if i == 0 {
		return "base"
	}
	return "candidate"
}
