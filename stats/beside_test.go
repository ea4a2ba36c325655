package stats

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// same returns n pairs of base against cand.
func same(n int, base, cand float64) []Pair {
	ps := make([]Pair, n)
	for i := range ps {
		ps[i] = Pair{Base: base, Cand: cand}
	}
	return ps
}

func TestBeside(t *testing.T) {
	for _, tt := range []struct {
		name    string
		metrics [][]Pair
		want    []Outcome
	}{
		// An exact count at a fixed iteration count: every pair tied.
		{"Tied", [][]Pair{same(8, 13, 13), same(8, 0, 0)}, []Outcome{NotFaster, NotFaster}},
		{"Halved", [][]Pair{same(8, 4, 2), same(8, 64, 32)}, []Outcome{Faster, Faster}},
		{"Doubled", [][]Pair{same(8, 2, 4)}, []Outcome{Slower}},
		// From none to one allocation: a finite, significant increase.
		{"FromNone", [][]Pair{same(8, 0, 1)}, []Outcome{Slower}},
		// Five pairs cannot attain 95%: 2/32 is above 5%.
		{"TooFew", [][]Pair{same(5, 4, 2)}, []Outcome{NotFaster}},
		// Tied metrics cost the others nothing (Tarone): at 7 pairs a
		// Bonferroni correction over 21 metrics could claim nothing.
		{"TiedAreFree", append([][]Pair{same(7, 4, 2)}, repeat(20, same(7, 18, 18))...),
			append([]Outcome{Faster}, repeatOutcome(20, NotFaster)...)},
		// Seven metrics that could each reach the level are corrected
		// for: 2/128 is above 5%/7.
		{"Corrected", repeat(7, same(7, 4, 2)), repeatOutcome(7, NotFaster)},
		{"Empty", [][]Pair{nil, same(8, 4, 2)}, []Outcome{NotFaster, Faster}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			es, err := Beside(tt.metrics, 0.05)
			if err != nil {
				t.Fatal(err)
			}
			for i, e := range es {
				if e.Verdict != tt.want[i] {
					t.Errorf("metric %d: %s in [%v, %v] at %d pairs, want %s", i, e.Verdict, e.Low, e.High, e.Pairs, tt.want[i])
				}
			}
		})
	}
	t.Run("HalvedInterval", func(t *testing.T) {
		es, err := Beside([][]Pair{same(8, 4, 2)}, 0.05)
		if err != nil {
			t.Fatal(err)
		}
		if e := es[0]; !near(e.Speedup, 2) || !near(e.Low, 2) || !near(e.High, 2) || e.Pairs != 8 {
			t.Errorf("halved: %+v, want 2 in [2, 2] over 8 pairs", e)
		}
	})
	t.Run("Invalid", func(t *testing.T) {
		if _, err := Beside([][]Pair{same(8, -1, 2)}, 0.05); !errors.Is(err, ErrInvalid) {
			t.Errorf("negative value: err = %v, want ErrInvalid", err)
		}
		if _, err := Beside([][]Pair{same(8, 1, 2)}, 1.5); !errors.Is(err, ErrAlpha) {
			t.Errorf("alpha 1.5: err = %v, want ErrAlpha", err)
		}
	})
}

// TestBeside_AA draws metrics whose two sides come from one distribution,
// as a b.N-dependent average does at random iteration counts. It checks
// that the family's false claims stay near alpha.
func TestBeside_AA(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const trials = 2000
	claims := 0
	for range trials {
		metrics := make([][]Pair, 6)
		for m := range metrics {
			for range 10 {
				// Integers near 18, as B/op of an amortised slice are.
				metrics[m] = append(metrics[m], Pair{Base: float64(16 + rng.IntN(5)), Cand: float64(16 + rng.IntN(5))})
			}
		}
		es, err := Beside(metrics, 0.05)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			if e.Verdict != NotFaster {
				claims++
				break
			}
		}
	}
	// The family-wise rate is at most 5%; 2000 trials put 7.5% far
	// beyond chance.
	t.Logf("A/A rate %.2f%%", 100*float64(claims)/trials)
	if rate := float64(claims) / trials; rate > 0.075 {
		t.Errorf("A/A: a claim in %.1f%% of %d families, want at most 5%%", 100*rate, trials)
	}
}

func TestPositive(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   []Pair
		want []Pair
	}{
		{"NoZero", []Pair{{4, 2}}, []Pair{{4, 2}}},
		{"Whole", []Pair{{0, 1}, {0, 0}}, []Pair{{0.5, 1}, {0.5, 0.5}}},
		{"Fractions", []Pair{{0, 0.25}}, []Pair{{0.125, 0.25}}},
		{"AllZero", []Pair{{0, 0}}, []Pair{{0.5, 0.5}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := Positive(tt.in)
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("Positive(%v) = %v, want %v", tt.in, got, tt.want)
					break
				}
			}
		})
	}
}

func repeat(n int, ps []Pair) [][]Pair {
	out := make([][]Pair, n)
	for i := range out {
		out[i] = ps
	}
	return out
}

func repeatOutcome(n int, o Outcome) []Outcome {
	out := make([]Outcome, n)
	for i := range out {
		out[i] = o
	}
	return out
}
