package stats

import (
	"fmt"
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

// BenchmarkSequential_Forecast measures the forecast made once a pair, on
// 13 benchmarks whose rounds spread wide against the threshold, so that no
// look settles before the cap. From 2 rounds each looks at every count from
// the first claim to the cap. That is the dearest a default evaluation
// makes: 5–10 ms on the 2-CPU VM, against a pair's 0.6 s or more. From 29,
// Forecast looks once.
func BenchmarkSequential_Forecast(b *testing.B) {
	seq := Sequential{MinSpeedup: DefaultMinSpeedup}
	for _, n := range []int{2, 29} {
		d := make([][]float64, 13)
		for i := range d {
			d[i] = jitter(n, -0.05, 0.3)
		}
		rounds := roundsOf(d...)
		for _, f := range []struct {
			name string
			fn   func([]string, [][]Pair) int
		}{{"Forecast", seq.Forecast}} {
			b.Run(fmt.Sprintf("%s/rounds=%d", f.name, n), func(b *testing.B) {
				if got := f.fn(nil, rounds); got != DefaultMaxPairs {
					b.Fatalf("%s = %d, want the cap %d: the benchmark no longer measures every look", f.name, got, DefaultMaxPairs)
				}
				b.ReportAllocs()
				for b.Loop() {
					f.fn(nil, rounds)
				}
			})
		}
	}
}
