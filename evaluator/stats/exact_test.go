package stats

import (
	"errors"
	"math"
	"testing"
)

func TestCompareExact(t *testing.T) {
	for _, tt := range []struct {
		name       string
		base, cand []float64
		want       Exact
		err        error
	}{
		{"Same", []float64{3, 3, 3}, []float64{3, 3, 3}, Exact{Base: 3, Cand: 3}, nil},
		{"Fewer", []float64{5, 5}, []float64{2, 2, 2}, Exact{Base: 5, Cand: 2}, nil},
		{"Increased", []float64{0, 0}, []float64{1, 1}, Exact{Base: 0, Cand: 1, Increased: true}, nil},
		// A stray value on either side does not move the median.
		{"Stray", []float64{1024, 1024, 1040}, []float64{1024, 1032, 1024, 1024}, Exact{Base: 1024, Cand: 1024}, nil},
		{"EmptyBase", nil, []float64{1}, Exact{}, ErrEmpty},
		{"EmptyCand", []float64{1}, nil, Exact{}, ErrEmpty},
		{"Negative", []float64{1, -1}, []float64{1}, Exact{}, ErrNegative},
		{"NaN", []float64{1}, []float64{math.NaN()}, Exact{}, ErrNegative},
		{"Inf", []float64{math.Inf(1)}, []float64{1}, Exact{}, ErrNegative},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CompareExact(tt.base, tt.cand)
			if !errors.Is(err, tt.err) {
				t.Fatalf("CompareExact error %v, want %v", err, tt.err)
			}
			if got != tt.want {
				t.Errorf("CompareExact = %+v, want %+v", got, tt.want)
			}
		})
	}
}
