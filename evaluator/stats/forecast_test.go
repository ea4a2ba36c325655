package stats

import "testing"

func TestSequential_Forecast(t *testing.T) {
	seq := Sequential{MinSpeedup: 0.05}
	first := seq.FirstClaim()
	for _, tt := range []struct {
		name string
		d    [][]float64
		want func(int) bool
		says string
	}{
		{"OneRound", [][]float64{{-0.69}}, func(n int) bool { return n == 0 }, "0: one round has no spread"},
		{"Faster", [][]float64{jitter(3, -0.69, 0.05)}, func(n int) bool { return n == first }, "the first claim"},
		{"Slower", [][]float64{jitter(2, 0.69, 0.05)}, func(n int) bool { return n == first }, "the first claim"},
		{"Futile", [][]float64{jitter(4, 0, 0.002)}, func(n int) bool { return n == first }, "the first claim"},
		// Clear, and past the first claim already: this look.
		{"FasterPastFirst", [][]float64{jitter(first+2, -0.69, 0.05)}, func(n int) bool { return n == first+2 }, "this look"},
		{"Noisy", [][]float64{jitter(4, -0.05, 0.3)}, func(n int) bool { return n > first }, "later than the first claim"},
		{"AtCap", [][]float64{jitter(30, -0.05, 0.3)}, func(n int) bool { return n == 30 }, "the cap"},
		{"TwoBenchmarks", [][]float64{jitter(3, -0.69, 0.02), jitter(3, -0.4, 0.02)}, func(n int) bool { return n == first }, "the first claim"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rounds := roundsOf(tt.d...)
			got := seq.Forecast(nil, rounds)
			if !tt.want(got) {
				t.Fatalf("Forecast of %d rounds = %d, want %s (first claim %d)", len(rounds), got, tt.says, first)
			}
			if got == 0 || got >= 30 {
				return
			}
			// What it forecasts is what Look says of the rounds repeated:
			// settled at that look and not at the one before it.
			ext := make([][]Pair, got)
			for r := range ext {
				ext[r] = rounds[r%len(rounds)]
			}
			if dec := seq.Look(nil, ext); !dec.Settled {
				t.Errorf("Look at the forecast %d: not settled (%s)", got, dec.Reason)
			}
			if prev := got - 1; prev >= len(rounds) && prev >= first {
				if dec := seq.Look(nil, ext[:prev]); dec.Settled {
					t.Errorf("Look at %d, before the forecast %d: settled (%s)", prev, got, dec.Reason)
				}
			}
		})
	}
}

func TestSequential_ForecastUnchanged(t *testing.T) {
	seq := Sequential{MinSpeedup: 0.05}
	first := seq.FirstClaim()
	for _, tt := range []struct {
		name string
		d    [][]float64
		want func(int) bool
		says string
	}{
		{"OneRound", [][]float64{{-0.69}}, func(n int) bool { return n == 0 }, "0: one round has no spread"},
		// A clear change whose pairs spread little: one that changes
		// nothing, at that spread, is "not faster" at the first claim.
		{"Tight", [][]float64{jitter(5, -0.69, 0.01)}, func(n int) bool { return n == first }, "the first claim"},
		// Pairs that spread wide: one that changes nothing settles late
		// or never, whatever the change measured here.
		{"Wide", [][]float64{jitter(5, -0.69, 0.3)}, func(n int) bool { return n > first }, "later than the first claim"},
		{"WideUnchanged", [][]float64{jitter(5, 0, 0.3)}, func(n int) bool { return n > first }, "later than the first claim"},
		// More rounds than the first claim: still from the first claim.
		{"Many", [][]float64{jitter(20, 0.69, 0.01)}, func(n int) bool { return n == first }, "the first claim"},
		{"TwoBenchmarks", [][]float64{jitter(3, -0.69, 0.01), jitter(3, 0.4, 0.01)}, func(n int) bool { return n == first }, "the first claim"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := seq.ForecastUnchanged(nil, roundsOf(tt.d...))
			if !tt.want(got) {
				t.Fatalf("ForecastUnchanged = %d, want %s (first claim %d)", got, tt.says, first)
			}
		})
	}
	// What the change measured does not move it: only the spread does.
	a := seq.ForecastUnchanged(nil, roundsOf(jitter(6, -0.69, 0.06)))
	b := seq.ForecastUnchanged(nil, roundsOf(jitter(6, 0.2, 0.06)))
	if a != b {
		t.Errorf("ForecastUnchanged of the same spread around 2x faster: %d, around 1.2x slower: %d", a, b)
	}
}
