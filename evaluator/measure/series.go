package measure

import (
	"github.com/optimizer-dev/optimizer/result"
	"github.com/optimizer-dev/optimizer/stats"
)

// Series accumulates the samples of one candidate's benchmark phase: for each
// benchmark, the timed metric per round on both sides, plus the exact metrics
// (B/op, allocs/op), which are reported rather than tested.
type Series struct {
	order      []string          // timed benchmarks, in first-seen order
	units      map[string]string // benchmark -> its timed unit
	vals       map[string]*[2][]float64
	exactVals  map[[2]string]*[2][]float64 // (benchmark, unit) -> exact values
	exactOrder [][2]string
}

// NewSeries returns an empty series.
func NewSeries() *Series {
	return &Series{units: map[string]string{}, vals: map[string]*[2][]float64{}, exactVals: map[[2]string]*[2][]float64{}}
}

// TimedUnit reports whether a unit is a time per operation, the metric
// that the sequential test judges.
func TimedUnit(unit string) bool {
	switch unit {
	case "sec/op", "ns/op", "sec":
		return true
	}
	return false
}

func exactUnit(unit string) bool { return unit == "B/op" || unit == "allocs/op" }

// Add records one round. A benchmark missing on either side is left out of
// this round.
func (s *Series) Add(base, cand []Metric) {
	find := func(ms []Metric, bench, unit string) (float64, bool) {
		for _, m := range ms {
			if m.Bench == bench && m.Unit == unit {
				return m.Value, true
			}
		}
		return 0, false
	}
	for _, b := range base {
		c, ok := find(cand, b.Bench, b.Unit)
		if !ok {
			continue
		}
		switch {
		case TimedUnit(b.Unit):
			v := s.vals[b.Bench]
			if v == nil {
				v = new([2][]float64)
				s.vals[b.Bench] = v
				s.units[b.Bench] = b.Unit
				s.order = append(s.order, b.Bench)
			}
			v[Base] = append(v[Base], b.Value)
			v[Cand] = append(v[Cand], c)
		case exactUnit(b.Unit):
			k := [2]string{b.Bench, b.Unit}
			v := s.exactVals[k]
			if v == nil {
				v = new([2][]float64)
				s.exactVals[k] = v
				s.exactOrder = append(s.exactOrder, k)
			}
			v[Base] = append(v[Base], b.Value)
			v[Cand] = append(v[Cand], c)
		}
	}
}

// Names lists the timed benchmarks, in first-seen order.
func (s *Series) Names() []string { return s.order }

// Unit is the timed unit of a benchmark.
func (s *Series) Unit(name string) string { return s.units[name] }

// Rounds is the number of complete pairs every benchmark has.
func (s *Series) Rounds() int {
	n := -1
	for _, v := range s.vals {
		if n < 0 || len(v[0]) < n {
			n = len(v[0])
		}
	}
	return max(n, 0)
}

// Pairs returns the pairs by round: pairs[r][b] is benchmark b in round r.
func (s *Series) Pairs() [][]stats.Pair {
	n := s.Rounds()
	out := make([][]stats.Pair, n)
	for r := range n {
		out[r] = make([]stats.Pair, len(s.order))
		for b, name := range s.order {
			v := s.vals[name]
			out[r][b] = stats.Pair{Base: v[Base][r], Cand: v[Cand][r]}
		}
	}
	return out
}

// Center is the median of one side's values of a timed benchmark.
func (s *Series) Center(name string, sd Side) float64 {
	return stats.Median(s.vals[name][sd])
}

// Exact reports the exact metrics, flagging increases.
func (s *Series) Exact() []result.BenchResult {
	var out []result.BenchResult
	for _, k := range s.exactOrder {
		v := s.exactVals[k]
		b, c := stats.Median(v[Base]), stats.Median(v[Cand])
		br := result.BenchResult{Name: k[0], Unit: k[1], Base: b, Candidate: c, Pairs: len(v[0]), Exact: true, Increased: c > b}
		if c > 0 {
			br.Speedup = b / c
		}
		out = append(out, br)
	}
	return out
}
