package dashboard

import (
	"slices"
	"testing"
)

func TestLogAxis_Ticks(t *testing.T) {
	for _, tt := range []struct {
		name string
		vals []float64
		want []string
	}{
		{"Wide", []float64{0.4, 700}, []string{"1×", "10×", "100×"}},
		{"Decade", []float64{0.9, 6}, []string{"1×", "2×", "5×"}},
		{"Narrow", []float64{420, 780}, []string{"500×", "600×", "700×"}},
		{"AroundOne", []float64{0.97, 1.08}, []string{"1×"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, tk := range newLogAxis(tt.vals, 0, 100).ticks(timesLabel) {
				got = append(got, tk.Label)
			}
			for _, w := range tt.want {
				if !slices.Contains(got, w) {
					t.Errorf("ticks %v lack %s", got, w)
				}
			}
			if tt.name != "AroundOne" && (len(got) < 3 || len(got) > 9) {
				t.Errorf("%d ticks %v, want 3 to 9", len(got), got)
			}
		})
	}
}
