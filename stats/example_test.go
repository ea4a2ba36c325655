package stats_test

import (
	"fmt"

	"github.com/optimizer-dev/optimizer/stats"
)

// The evaluator's loop: one round of pairs at a time, a look after each from
// MinPairs on, until the verdict is settled or MaxPairs is reached.
func ExampleSequential_Look() {
	// ns/op of one benchmark: base, then the candidate about 1.6× faster.
	base := []float64{102, 99, 101, 100, 98, 103, 100, 97, 101, 99}
	cand := []float64{63, 61, 64, 62, 60, 65, 61, 63, 62, 64}
	seq := stats.Sequential{MinSpeedup: 0.05}
	var rounds [][]stats.Pair
	for r := range base {
		rounds = append(rounds, []stats.Pair{{Base: base[r], Cand: cand[r]}})
		if len(rounds) < stats.DefaultMinPairs {
			continue
		}
		dec := seq.Look([]string{"BenchmarkParse"}, rounds)
		fmt.Printf("%d pairs: %s, settled %v\n", dec.Pairs, dec.Verdict, dec.Settled)
		if dec.Settled {
			a := dec.Aggregate
			fmt.Printf("speedup %.2f× [%.2f, %.2f] at %.1f%%\n", a.Speedup, a.Low, a.High, 100*a.Level)
			break
		}
	}
	// Output:
	// 6 pairs: not-faster, settled false
	// 7 pairs: not-faster, settled false
	// 8 pairs: faster, settled true
	// speedup 1.61× [1.56, 1.64] at 98.8%
}
