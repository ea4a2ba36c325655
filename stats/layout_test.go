package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRankSumP_Exact: fully separated groups have the smallest p-value
// the sizes allow (2 / C(n+m, n)), and the order of the groups does not
// matter.
func TestRankSumP_Exact(t *testing.T) {
	for _, tt := range []struct {
		x, y []float64
		want float64
	}{
		{[]float64{5, 6, 7, 8}, []float64{1, 2, 3, 4}, 2.0 / 70},
		{[]float64{1, 2, 3}, []float64{4, 5, 6}, 2.0 / 20},
		{[]float64{1, 4}, []float64{2, 3}, 1},
	} {
		if got := RankSumP(tt.x, tt.y); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("RankSumP(%v, %v) = %v, want %v", tt.x, tt.y, got, tt.want)
		}
		if got := RankSumP(tt.y, tt.x); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("RankSumP(%v, %v) = %v, want %v", tt.y, tt.x, got, tt.want)
		}
	}
}

// TestRankSumP_Enumeration compares the p-value with the share of all
// splits of the pooled values whose U is at least as far from its mean
// (distinct values: no ties).
func TestRankSumP_Enumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n, m := 1+r.IntN(6), 1+r.IntN(6)
		pool := make([]float64, n+m)
		for i := range pool {
			pool[i] = r.NormFloat64()
		}
		x, y := pool[:n], pool[n:]
		u := func(x, y []float64) float64 {
			var s float64
			for _, a := range x {
				for _, b := range y {
					if a > b {
						s++
					} else if a == b {
						s += 0.5
					}
				}
			}
			return s
		}
		mean := float64(n*m) / 2
		obs := math.Abs(u(x, y) - mean)
		far, all := 0, 0
		for mask := 0; mask < 1<<(n+m); mask++ {
			var gx, gy []float64
			for i, v := range pool {
				if mask>>i&1 == 1 {
					gx = append(gx, v)
				} else {
					gy = append(gy, v)
				}
			}
			if len(gx) != n {
				continue
			}
			all++
			if math.Abs(u(gx, gy)-mean) >= obs-1e-9 {
				far++
			}
		}
		if got, exact := RankSumP(x, y), float64(far)/float64(all); math.Abs(got-exact) > 1e-9 {
			t.Fatalf("trial %d: RankSumP(%v, %v) = %v, enumeration %v", trial, x, y, got, exact)
		}
	}
}

// TestLayoutSensitive: an effect in one layout only is layout-sensitive;
// an effect in both, or a difference the pairs cannot show, is not.
func TestLayoutSensitive(t *testing.T) {
	logs := func(speedups ...float64) []float64 {
		out := make([]float64, len(speedups))
		for i, s := range speedups {
			out[i] = -math.Log(s)
		}
		return out
	}
	for _, tt := range []struct {
		name string
		a, b []float64
		want bool
	}{
		{"one layout only", logs(1.8, 1.7, 1.9, 1.75), logs(1.0, 0.98, 1.02, 1.01), true},
		{"both layouts", logs(2.0, 1.9, 2.1, 1.95), logs(1.98, 2.05, 1.92, 2.02), false},
		{"neither layout", logs(1.01, 0.99, 1.0, 1.02), logs(0.98, 1.0, 1.03, 0.97), false},
		{"too few pairs", logs(1.8, 1.7, 1.9), logs(1.0, 0.98, 1.02), false},
		{"differ within the noise", logs(1.3, 0.9, 1.2, 1.0), logs(1.02, 1.1, 0.95, 1.25), false},
	} {
		got, s := LayoutSensitive(tt.a, tt.b, 0.05, 0.05)
		if got != tt.want {
			t.Errorf("%s: LayoutSensitive = %t (speedups %.3f, %.3f), want %t", tt.name, got, s[0], s[1], tt.want)
		}
	}
}
