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
