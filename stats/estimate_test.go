package stats

import (
	"errors"
	"math"
	"testing"
)

// pairsOf returns pairs whose log-ratios ln(cand/base) are d, on bases that
// vary so that only the ratios matter.
func pairsOf(d ...float64) []Pair {
	ps := make([]Pair, len(d))
	for i, x := range d {
		base := 1e-6 * float64(i+1)
		ps[i] = Pair{Base: base, Cand: base * math.Exp(x)}
	}
	return ps
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestCompare(t *testing.T) {
	t.Run("Depression", func(t *testing.T) {
		// The log-ratios are R's example differences: the speedup is
		// exp(-0.46) and the bounds swap.
		e, err := Compare(pairsOf(depression...), 0.05)
		if err != nil {
			t.Fatal(err)
		}
		want := Estimate{Speedup: math.Exp(-0.46), Low: math.Exp(-0.786), High: math.Exp(-0.01),
			Level: 1 - 20./512, P: 20. / 512, Pairs: 9}
		if !near(e.Speedup, want.Speedup) || !near(e.Low, want.Low) || !near(e.High, want.High) ||
			!near(e.Level, want.Level) || !near(e.P, want.P) || e.Pairs != want.Pairs {
			t.Errorf("Compare = %+v, want %+v", e, want)
		}
	})
	t.Run("Faster", func(t *testing.T) {
		// Every candidate run takes half the time: speedup 2 exactly.
		e, err := Compare(pairsOf(-math.Ln2, -math.Ln2, -math.Ln2, -math.Ln2, -math.Ln2, -math.Ln2), 0.05)
		if err != nil {
			t.Fatal(err)
		}
		if !near(e.Speedup, 2) || !near(e.Low, 2) || !near(e.High, 2) {
			t.Errorf("Compare = %+v, want speedup 2 in [2, 2]", e)
		}
		// All tied: p is exact given the ties, 2/64 as without them.
		if !near(e.P, 2./64) {
			t.Errorf("P = %v, want 2/64", e.P)
		}
	})
	t.Run("Identical", func(t *testing.T) {
		ps := []Pair{{3, 3}, {3, 3}, {2, 2}, {5, 5}, {4, 4}, {4, 4}}
		e, err := Compare(ps, 0.05)
		if err != nil {
			t.Fatal(err)
		}
		if e.Speedup != 1 || e.Low != 1 || e.High != 1 || e.P != 1 {
			t.Errorf("Compare(identical) = %+v, want 1 in [1, 1], p 1", e)
		}
	})
	t.Run("FewPairs", func(t *testing.T) {
		// Five pairs cannot give a 95% interval: the whole range comes
		// back with the level it has, 1-2/32.
		e, err := Compare(pairsOf(-0.1, -0.2, -0.15, -0.12, -0.3), 0.05)
		if err != nil {
			t.Fatal(err)
		}
		if !near(e.Level, 1-2./32) || !near(e.Low, math.Exp(0.1)) || !near(e.High, math.Exp(0.3)) {
			t.Errorf("Compare(5 pairs) = %+v, want the range [e^0.1, e^0.3] at level 15/16", e)
		}
	})
	t.Run("Invariants", func(t *testing.T) {
		e, err := Compare(pairsOf(0.3, -0.2, 0.01, 0.05, -0.4, 0.2, 0.1, -0.05, 0), 0.05)
		if err != nil {
			t.Fatal(err)
		}
		if !(e.Low <= e.Speedup && e.Speedup <= e.High) || e.P < 0 || e.P > 1 {
			t.Errorf("Compare = %+v: want Low <= Speedup <= High and 0 <= P <= 1", e)
		}
	})
}

func TestCompare_Errors(t *testing.T) {
	good := pairsOf(0.1, 0.2, 0.3, 0.1, 0.2, 0.3)
	with := func(i int, p Pair) []Pair {
		ps := append([]Pair(nil), good...)
		ps[i] = p
		return ps
	}
	for _, tt := range []struct {
		name  string
		pairs []Pair
		alpha float64
		err   error
	}{
		{"Empty", nil, 0.05, ErrEmpty},
		{"ZeroBase", with(2, Pair{0, 1}), 0.05, ErrInvalid},
		{"ZeroCand", with(0, Pair{1, 0}), 0.05, ErrInvalid},
		{"Negative", with(5, Pair{-1, 1}), 0.05, ErrInvalid},
		{"NaN", with(1, Pair{math.NaN(), 1}), 0.05, ErrInvalid},
		{"Inf", with(3, Pair{1, math.Inf(1)}), 0.05, ErrInvalid},
		{"AlphaZero", good, 0, ErrAlpha},
		{"AlphaOne", good, 1, ErrAlpha},
		{"AlphaNaN", good, math.NaN(), ErrAlpha},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compare(tt.pairs, tt.alpha)
			if !errors.Is(err, tt.err) {
				t.Errorf("Compare error %v, want %v", err, tt.err)
			}
		})
	}
}

func TestGeoMean(t *testing.T) {
	t.Run("OneBenchmark", func(t *testing.T) {
		ps := pairsOf(depression...)
		rounds := make([][]Pair, len(ps))
		for r, p := range ps {
			rounds[r] = []Pair{p}
		}
		g, err := geoMean(rounds, 0.05)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := Compare(ps, 0.05)
		if g != c {
			t.Errorf("GeoMean of one benchmark %+v, want Compare's %+v", g, c)
		}
	})
	t.Run("Mean", func(t *testing.T) {
		// Benchmark 1 is 2× faster, benchmark 2 unchanged, with a little
		// noise that the clamp leaves alone: the geometric mean is √2.
		a := []float64{-0.70, -0.69, -0.68, -0.71, -0.69, -0.70, -0.68, -0.69}
		b := []float64{0.01, -0.01, 0.00, 0.01, -0.01, 0.00, 0.02, -0.02}
		rounds := make([][]Pair, len(a))
		want := make([]float64, len(a))
		for r := range a {
			rounds[r] = []Pair{pairsOf(a[r])[0], pairsOf(b[r])[0]}
			want[r] = (a[r] + b[r]) / 2
		}
		g, err := geoMean(rounds, 0.05)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := Compare(pairsOf(want...), 0.05)
		if !near(g.Speedup, c.Speedup) || !near(g.Low, c.Low) || !near(g.High, c.High) {
			t.Errorf("GeoMean = %+v, want the estimate of the per-round means %+v", g, c)
		}
		if math.Abs(g.Speedup-math.Sqrt2) > 0.01 {
			t.Errorf("GeoMean speedup %v, want about √2", g.Speedup)
		}
	})
	t.Run("Outlier", func(t *testing.T) {
		// One 3× slow candidate sample of benchmark 2 in round 1 is
		// clamped: the aggregate hardly moves.
		a := []float64{-0.20, -0.21, -0.19, -0.20, -0.22, -0.18, -0.20, -0.21}
		b := []float64{-0.10, -0.11, -0.09, -0.10, -0.12, -0.08, -0.10, -0.11}
		build := func(outlier float64) [][]Pair {
			rounds := make([][]Pair, len(a))
			for r := range a {
				x := b[r]
				if r == 0 {
					x += outlier
				}
				rounds[r] = []Pair{pairsOf(a[r])[0], pairsOf(x)[0]}
			}
			return rounds
		}
		clean, err := geoMean(build(0), 0.05)
		if err != nil {
			t.Fatal(err)
		}
		dirty, err := geoMean(build(math.Log(3)), 0.05)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(math.Log(dirty.Speedup/clean.Speedup)) > 0.01 || math.Abs(math.Log(dirty.Low/clean.Low)) > 0.02 {
			t.Errorf("with an outlier %+v, without %+v: want nearly the same", dirty, clean)
		}
	})
	t.Run("Errors", func(t *testing.T) {
		ok := []Pair{{1, 1}, {2, 2}}
		for _, tt := range []struct {
			name   string
			rounds [][]Pair
			err    error
		}{
			{"Empty", nil, ErrEmpty},
			{"EmptyRound", [][]Pair{{}}, ErrEmpty},
			{"Ragged", [][]Pair{ok, ok, {{1, 1}}}, ErrRagged},
			{"Invalid", [][]Pair{ok, {{1, 1}, {2, math.NaN()}}}, ErrInvalid},
		} {
			t.Run(tt.name, func(t *testing.T) {
				if _, err := geoMean(tt.rounds, 0.05); !errors.Is(err, tt.err) {
					t.Errorf("GeoMean error %v, want %v", err, tt.err)
				}
			})
		}
	})
}

func TestPair_LogRatio(t *testing.T) {
	if got := (Pair{Base: 2, Cand: 1}).LogRatio(); !near(got, -math.Ln2) {
		t.Errorf("LogRatio of a 2× faster pair = %v, want -ln 2", got)
	}
}

// geoMean estimates the geometric mean of the speedups of several
// benchmarks, as Sequential.Look's aggregate does: rounds[r][b] is the pair
// of benchmark b in round r. Each round's mean log-ratio is one observation.
func geoMean(rounds [][]Pair, alpha float64) (Estimate, error) {
	if err := checkAlpha(alpha); err != nil {
		return Estimate{}, err
	}
	g, _, err := roundRatios(rounds)
	if err != nil {
		return Estimate{}, err
	}
	e, _, _ := estimate(g, alpha/2, alpha/2, nil)
	return e, nil
}
