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
