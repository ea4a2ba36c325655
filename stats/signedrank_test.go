package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// bruteNull counts, over all 2^n sign patterns, how many give T+ = w.
func bruteNull(n int) []float64 {
	m := n * (n + 1) / 2
	p := make([]float64, m+1)
	for mask := range 1 << n {
		s := 0
		for i := range n {
			if mask&(1<<i) != 0 {
				s += i + 1
			}
		}
		p[s]++
	}
	for w := range p {
		p[w] /= float64(int(1) << n)
		if w > 0 {
			p[w] += p[w-1]
		}
	}
	return p
}

func TestNullCDF_Brute(t *testing.T) {
	for n := 1; n <= 14; n++ {
		got, want := nullCDF(n), bruteNull(n)
		if len(got) != len(want) {
			t.Fatalf("n=%d: %d values, want %d", n, len(got), len(want))
		}
		for w := range want {
			if math.Abs(got[w]-want[w]) > 1e-15 {
				t.Fatalf("n=%d: P(T+ <= %d) = %v, want %v", n, w, got[w], want[w])
			}
		}
	}
}

func TestNullCDF_Known(t *testing.T) {
	// n=3: sums 0..6 are reached by 1,1,1,2,1,1,1 of the 8 sign patterns.
	want3 := []float64{1. / 8, 2. / 8, 3. / 8, 5. / 8, 6. / 8, 7. / 8, 1}
	if got := nullCDF(3); !slices.Equal(got, want3) {
		t.Errorf("nullCDF(3) = %v, want %v", got, want3)
	}
	// Tables: n=10, the one-sided 2.5% critical value is 8 (25/1024).
	if got := nullCDF(10)[8]; got != 25./1024 {
		t.Errorf("n=10: P(T+ <= 8) = %v, want 25/1024", got)
	}
	// The distribution is symmetric: P(T+ <= w) = P(T+ >= m-w).
	cdf := nullCDF(30)
	m := 30 * 31 / 2
	for w := 0; w < m; w++ {
		if d := cdf[w] - (1 - cdf[m-w-1]); math.Abs(d) > 1e-12 {
			t.Fatalf("n=30 not symmetric at %d: %v", w, d)
		}
	}
}

func TestCriticalCount(t *testing.T) {
	for _, tt := range []struct {
		name      string
		n         int
		tail      float64
		k         int
		achieved  float64
		reachable bool
	}{
		// n=6: the extreme Walsh average has error 1/64; 1% is out of reach.
		{"n6/extreme", 6, 1. / 64, 0, 1. / 64, true},
		{"n6/unreachable", 6, 0.01, 0, 1. / 64, false},
		{"n6/one", 6, 2. / 64, 1, 2. / 64, true},
		// n=8: P(T+<=0)=1/256, P(T+<=1)=2/256, P(T+<=2)=3/256.
		{"n8/extreme", 8, 1. / 256, 0, 1. / 256, true},
		{"n8/one", 8, 2. / 256, 1, 2. / 256, true},
		{"n8/between", 8, 2.5 / 256, 1, 2. / 256, true},
		// n=10 at 2.5%: P(T+<=8)=25/1024 <= 0.025 < P(T+<=9)=33/1024.
		{"n10", 10, 0.025, 8, 25. / 1024, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			k, a := criticalCount(tt.n, tt.tail)
			if k != tt.k || math.Abs(a-tt.achieved) > 1e-15 {
				t.Errorf("criticalCount(%d, %v) = %d, %v; want %d, %v", tt.n, tt.tail, k, a, tt.k, tt.achieved)
			}
			if got := a <= tt.tail; got != tt.reachable {
				t.Errorf("error %v within %v: %v, want %v", a, tt.tail, got, tt.reachable)
			}
		})
	}
}

// TestCriticalCount_Normal checks the normal approximation used above
// maxExact against the exact distribution at maxExact.
func TestCriticalCount_Normal(t *testing.T) {
	for _, tail := range []float64{0.025, 0.001} {
		kExact, _ := criticalCount(maxExact, tail)
		kNormal, aNormal := criticalCount(maxExact+1, tail)
		// One more value shifts the distribution up by about n/2.
		if d := kNormal - kExact; d < 50 || d > 150 || aNormal > tail*1.01 {
			t.Errorf("tail %v: exact k %d at n=%d, normal k %d (error %v) at n=%d", tail, kExact, maxExact, kNormal, aNormal, maxExact+1)
		}
	}
}

// depression is the paired example of R's wilcox.test (Hollander & Wolfe),
// as differences x-y.
var depression = func() []float64 {
	x := []float64{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30}
	y := []float64{0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29}
	d := make([]float64, len(x))
	for i := range x {
		d[i] = x[i] - y[i]
	}
	return d
}()

func TestSignedRankP(t *testing.T) {
	for _, tt := range []struct {
		name string
		d    []float64
		want float64
	}{
		// All six positive: T+ = 21, P(T+ >= 21) = 1/64.
		{"AllPositive", []float64{1, 2, 3, 4, 5, 6}, 2. / 64},
		// T+ = 20: P(T+ >= 20) = P(T+ <= 1) = 2/64.
		{"OneNegative", []float64{-1, 2, 3, 4, 5, 6}, 4. / 64},
		{"Mirror", []float64{1, -2, -3, -4, -5, -6}, 4. / 64},
		// Zeros are dropped: n=2, T+ = 3, P(T+ >= 3) = 1/4.
		{"Zeros", []float64{0, 1, 2}, 0.5},
		{"AllZero", []float64{0, 0, 0, 0, 0, 0}, 1},
		// Ties: mid-ranks 1.5, 1.5, 3, all positive: only 1 of 8 sign
		// patterns reaches the sum, exactly given the ties.
		{"Ties", []float64{1, 1, 2}, 0.25},
		{"Single", []float64{-3}, 1},
		// R: wilcox.test(x, y, paired = TRUE) gives V = 40, p = 0.03906.
		{"Depression", depression, 20. / 512},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := signedRankP(tt.d); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("signedRankP(%v) = %v, want %v", tt.d, got, tt.want)
			}
		})
	}
}

// TestSignedRankP_Normal checks the normal approximation used above
// maxExact against the exact computation just below it.
func TestSignedRankP_Normal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	d := make([]float64, maxExact+1)
	for i := range d {
		d[i] = rng.NormFloat64() + 0.15
	}
	approx := signedRankP(d)
	exact := signedRankP(d[:maxExact])
	if approx <= 0 || approx >= 1 || math.Abs(math.Log(approx/exact)) > 0.5 {
		t.Errorf("normal approximation %v, exact on one value fewer %v", approx, exact)
	}
}

func TestHodgesLehmann(t *testing.T) {
	t.Run("Small", func(t *testing.T) {
		// Walsh averages of 1, 2, 3: 1, 1.5, 2, 2, 2.5, 3.
		c, lo, hi, eLo, eHi, _ := hodgesLehmann([]float64{3, 1, 2}, 0.125, 0.125, nil)
		if c != 2 || lo != 1 || hi != 3 || eLo != 0.125 || eHi != 0.125 {
			t.Errorf("got %v [%v, %v] with errors %v, %v; want 2 [1, 3] with 1/8 each", c, lo, hi, eLo, eHi)
		}
	})
	t.Run("Depression", func(t *testing.T) {
		// 45 Walsh averages; the median is the 23rd, 0.46 (R's
		// (pseudo)median). At 95%, k = 5: [W(6), W(40)], each bound with
		// error 10/512, as R's conf.int.
		c, lo, hi, eLo, eHi, _ := hodgesLehmann(depression, 0.025, 0.025, nil)
		for _, x := range []struct{ got, want float64 }{{c, 0.46}, {lo, 0.01}, {hi, 0.786}, {eLo, 10. / 512}, {eHi, 10. / 512}} {
			if math.Abs(x.got-x.want) > 1e-12 {
				t.Errorf("got %v [%v, %v] with errors %v, %v; want 0.46 [0.01, 0.786] with 10/512 each", c, lo, hi, eLo, eHi)
				break
			}
		}
		// Unequal tails: 2/512 below puts the lower bound at W(2), the
		// mean of the two smallest differences, -0.147 and -0.08.
		_, lo, _, eLo, _, _ = hodgesLehmann(depression, 2./512, 0.025, nil)
		if math.Abs(lo-(-0.147-0.08)/2) > 1e-12 || eLo != 2./512 {
			t.Errorf("lower bound at 2/512: %v with error %v, want W(2) = -0.1135 with 2/512", lo, eLo)
		}
	})
	t.Run("Outlier", func(t *testing.T) {
		// One wild value moves the estimate by a few Walsh averages, not
		// by its size.
		d := []float64{0.10, 0.11, 0.09, 0.10, 0.12, 0.08, 0.10, 50}
		c, _, _, _, _, _ := hodgesLehmann(d, 0.025, 0.025, nil)
		if c < 0.09 || c > 0.12 {
			t.Errorf("estimate %v with one outlier, want about 0.10", c)
		}
	})
}

// TestHodgesLehmann_Inversion checks that the interval is the set of shifts
// the exact test does not reject. Just inside either bound the test's
// p-value is above alpha; just outside it is at most alpha.
func TestHodgesLehmann_Inversion(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		n := 6 + trial%25
		d := make([]float64, n)
		for i := range d {
			d[i] = 0.1*rng.NormFloat64() - 0.05
		}
		alpha := []float64{0.05, 0.01, 1. / 64}[trial%3]
		_, lo, hi, eLo, eHi, _ := hodgesLehmann(d, alpha/2, alpha/2, nil)
		if eLo > alpha/2 {
			continue // not reachable at this n: nothing to invert
		}
		a := eLo + eHi // the two-sided level of the test
		const eps = 1e-9
		shifted := func(theta float64) float64 {
			x := make([]float64, n)
			for i := range d {
				x[i] = d[i] - theta
			}
			return signedRankP(x)
		}
		if p := shifted(lo + eps); p <= a {
			t.Errorf("n=%d alpha=%v: just above the lower bound p=%v, want > %v", n, alpha, p, a)
		}
		if p := shifted(hi - eps); p <= a {
			t.Errorf("n=%d alpha=%v: just below the upper bound p=%v, want > %v", n, alpha, p, a)
		}
		if p := shifted(lo - eps); p > a+1e-12 {
			t.Errorf("n=%d alpha=%v: just below the lower bound p=%v, want <= %v", n, alpha, p, a)
		}
		if p := shifted(hi + eps); p > a+1e-12 {
			t.Errorf("n=%d alpha=%v: just above the upper bound p=%v, want <= %v", n, alpha, p, a)
		}
	}
}

// TestHodgesLehmann_Sorted checks selection against sorting all the Walsh
// averages, on data with and without ties.
func TestHodgesLehmann_Sorted(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 300 {
		n := 1 + trial%40
		d := make([]float64, n)
		for i := range d {
			d[i] = rng.NormFloat64()
			if trial%2 == 0 {
				d[i] = float64(rng.IntN(4)) // heavy ties
			}
		}
		tailLo, tailHi := []float64{0.025, 0.0005, 0.15}[trial%3], []float64{0.01, 0.02, 0.001}[trial%3]
		var w []float64
		for i := range d {
			for j := i; j < n; j++ {
				w = append(w, (d[i]+d[j])/2)
			}
		}
		slices.Sort(w)
		m := len(w)
		want := w[m/2]
		if m%2 == 0 {
			want = (w[m/2-1] + w[m/2]) / 2
		}
		kLo, _ := criticalCount(n, tailLo)
		kHi, _ := criticalCount(n, tailHi)
		c, lo, hi, _, _, _ := hodgesLehmann(d, tailLo, tailHi, nil)
		if c != want {
			t.Fatalf("n=%d: centre %v, want %v", n, c, want)
		}
		if kLo <= m-1-kHi && (lo != w[kLo] || hi != w[m-1-kHi]) {
			t.Fatalf("n=%d tails %v, %v: [%v, %v], want [%v, %v]", n, tailLo, tailHi, lo, hi, w[kLo], w[m-1-kHi])
		}
	}
}

func TestSelectK(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 500 {
		x := make([]float64, 1+rng.IntN(300))
		for i := range x {
			x[i] = float64(rng.IntN(1 + trial%50))
		}
		sorted := slices.Clone(x)
		slices.Sort(sorted)
		k := rng.IntN(len(x))
		selectK(x, k)
		if x[k] != sorted[k] {
			t.Fatalf("selectK: x[%d] = %v, want %v", k, x[k], sorted[k])
		}
		for i := range x {
			if (i < k && x[i] > x[k]) || (i > k && x[i] < x[k]) {
				t.Fatalf("selectK: x[%d] = %v on the wrong side of x[%d] = %v", i, x[i], k, x[k])
			}
		}
	}
}
