package stats

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkSequential_Look measures one look at the cap: 30 rounds of 5
// benchmarks, the largest look a default evaluation makes.
func BenchmarkSequential_Look(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	sc := scenario{m: pinned, benches: 5, speedup: 1.1}
	noise := sc.m.timeline(rng, 30, 10)
	rounds := make([][]Pair, 30)
	for r := range rounds {
		rounds[r] = make([]Pair, 5)
		for i := range rounds[r] {
			rounds[r][i] = Pair{Base: 1 + noise[10*r+i], Cand: (1 + noise[10*r+5+i]) / 1.1}
		}
	}
	names := []string{"A", "B", "C", "D", "E"}
	seq := Sequential{MinSpeedup: DefaultMinSpeedup}
	b.ReportAllocs()
	for b.Loop() {
		seq.Look(names, rounds)
	}
}

// BenchmarkSequential_Forecast measures a forecast (made once a pair) from
// 29 rounds of 13 benchmarks that spread wide against the threshold: one
// look, which does not settle.
func BenchmarkSequential_Forecast(b *testing.B) {
	d := make([][]float64, 13)
	for i := range d {
		d[i] = jitter(29, -0.05, 0.3)
	}
	rounds := roundsOf(d...)
	seq := Sequential{MinSpeedup: DefaultMinSpeedup}
	if n := seq.Forecast(nil, rounds); n != DefaultMaxPairs {
		b.Fatalf("Forecast = %d, want the cap %d: the benchmark no longer measures every look", n, DefaultMaxPairs)
	}
	b.ReportAllocs()
	for b.Loop() {
		seq.Forecast(nil, rounds)
	}
}

// BenchmarkSequential_ForecastEarly is the dearest forecast a default
// evaluation makes: from 2 rounds of 13 benchmarks that spread wide, every
// look from the first claim to the cap, none settling (5–10 ms on the
// 2-CPU VM, against a pair's 0.6 s or more).
func BenchmarkSequential_ForecastEarly(b *testing.B) {
	d := make([][]float64, 13)
	for i := range d {
		d[i] = jitter(2, -0.05, 0.3)
	}
	rounds := roundsOf(d...)
	seq := Sequential{MinSpeedup: DefaultMinSpeedup}
	if n := seq.Forecast(nil, rounds); n != DefaultMaxPairs {
		b.Fatalf("Forecast = %d, want the cap %d: the benchmark no longer measures every look", n, DefaultMaxPairs)
	}
	b.ReportAllocs()
	for b.Loop() {
		seq.Forecast(nil, rounds)
	}
}
