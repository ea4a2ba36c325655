package stats

import (
	"math"
	"testing"
)

func TestCodeflashRule(t *testing.T) {
	for _, tt := range []struct {
		name       string
		base, cand []float64
		threshold  float64
		want       bool
	}{
		// Minimum over loops: 100 against 90 is an 11.1% gain.
		{"Gain", []float64{120, 100, 130}, []float64{95, 90, 200}, 0.05, true},
		// Exactly 5%: (105-100)/100 is not above 0.05.
		{"AtThreshold", []float64{105}, []float64{100}, 0.05, false},
		{"JustAbove", []float64{105.01}, []float64{100}, 0.05, true},
		{"Slower", []float64{100}, []float64{110}, 0.05, false},
		// Only the minimum counts: slow loops on the candidate side do
		// not matter, one lucky fast loop does.
		{"LuckyLoop", []float64{100, 100, 100}, []float64{500, 500, 90}, 0.05, true},
		{"ZeroThreshold", []float64{100}, []float64{99.9}, 0, true},
		{"NoBase", nil, []float64{1}, 0.05, false},
		{"NoCand", []float64{1}, nil, 0.05, false},
		{"ZeroCand", []float64{1}, []float64{0}, 0.05, false},
		{"NaN", []float64{math.NaN()}, []float64{1}, 0.05, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := CodeflashRule(tt.base, tt.cand, tt.threshold); got != tt.want {
				t.Errorf("CodeflashRule(%v, %v, %v) = %v, want %v", tt.base, tt.cand, tt.threshold, got, tt.want)
			}
		})
	}
}
