package measure

import (
	"testing"

	"github.com/optimizer-dev/optimizer/stats"
)

// TestSeries_Beside: an average that changes with the iteration count is
// compared only in pairs that ran the same count. So a b.N-dependent B/op of
// identical code is no change however the counts fall. A halved allocs/op,
// the same at every count, is decreased over every pair, with its interval.
// Time goes beside when allocs/op is judged, and a judged zero is no error.
func TestSeries_Beside(t *testing.T) {
	m := func(bench, unit string, v float64, iters int64) Metric {
		return Metric{Bench: bench, Unit: unit, Value: v, Iters: iters}
	}
	// An amortised slice: B/op is 40 at 1000 iterations, 48 at 700.
	amortised := map[int64]float64{1000: 40, 700: 48}
	t.Run("EqualCounts", func(t *testing.T) {
		s := NewSeries(nil)
		for r := range 14 {
			nb, nc := int64(1000), int64(1000)
			if r%2 == 0 {
				nc = 700 // the candidate's samples ran fewer iterations half the time
			}
			s.Add([]Metric{m("BenchmarkA", "sec/op", 1e-6, nb), m("BenchmarkA", "B/op", amortised[nb], nb), m("BenchmarkA", "allocs/op", 4, nb)},
				[]Metric{m("BenchmarkA", "sec/op", 1e-6, nc), m("BenchmarkA", "B/op", amortised[nc], nc), m("BenchmarkA", "allocs/op", 2, nc)})
		}
		rows := s.Beside(0.05)
		if len(rows) != 2 {
			t.Fatalf("rows %+v; want B/op and allocs/op", rows)
		}
		if b := rows[0]; b.Unit != "B/op" || b.Increased || b.Decreased || b.Pairs != 7 || b.Base != 40 || b.Candidate != 40 {
			t.Errorf("B/op %+v; want 40 against 40 over the 7 pairs of equal counts, unchanged", b)
		}
		if a := rows[1]; a.Unit != "allocs/op" || !a.Decreased || a.CI != [2]float64{2, 2} || a.Pairs != 14 {
			t.Errorf("allocs/op %+v; want decreased, [2, 2] over all 14 pairs", a)
		}
	})
	t.Run("JudgedAllocs", func(t *testing.T) {
		s := NewSeries(func(u string) bool { return u == "allocs/op" })
		for range 8 {
			s.Add([]Metric{m("BenchmarkA", "sec/op", 1e-6, 10), m("BenchmarkA", "allocs/op", 4, 10), m("BenchmarkZ", "allocs/op", 0, 10)},
				[]Metric{m("BenchmarkA", "sec/op", 1e-6, 10), m("BenchmarkA", "allocs/op", 2, 10), m("BenchmarkZ", "allocs/op", 0, 10)})
		}
		dec := stats.Sequential{MinPairs: 6, MaxPairs: 8, MinSpeedup: 0.05}.Look(s.Names(), s.Pairs())
		if dec.Err != nil || len(dec.PerBench) != 2 || dec.PerBench[0].Speedup != 2 || dec.PerBench[1].Speedup != 1 {
			t.Errorf("judged allocs/op: %+v (%v); want BenchmarkA 2× and BenchmarkZ, 0 against 0, 1×", dec.PerBench, dec.Err)
		}
		if rows := s.Beside(0.05); len(rows) != 1 || rows[0].Unit != "sec/op" || rows[0].Increased || rows[0].Decreased {
			t.Errorf("beside allocs/op: %+v; want time, unchanged", rows)
		}
	})
}
