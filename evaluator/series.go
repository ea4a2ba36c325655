package evaluator

import (
	"github.com/optimizer-dev/optimizer/stats"
)

// series accumulates the samples of one candidate's benchmark phase: for each
// benchmark, the timed metric per round on both sides, plus the exact metrics
// (B/op, allocs/op), which are reported rather than tested.
type series struct {
	order      []string          // timed benchmarks, in first-seen order
	units      map[string]string // benchmark -> its timed unit
	vals       map[string]*[2][]float64
	exactVals  map[[2]string]*[2][]float64 // (benchmark, unit) -> exact values
	exactOrder [][2]string
}

func newSeries() *series {
	return &series{units: map[string]string{}, vals: map[string]*[2][]float64{}, exactVals: map[[2]string]*[2][]float64{}}
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

// add records one round. A benchmark missing on either side is left out of
// this round.
func (s *series) add(base, cand []metric) {
	find := func(ms []metric, bench, unit string) (float64, bool) {
		for _, m := range ms {
			if m.bench == bench && m.unit == unit {
				return m.value, true
			}
		}
		return 0, false
	}
	for _, b := range base {
		c, ok := find(cand, b.bench, b.unit)
		if !ok {
			continue
		}
		switch {
		case TimedUnit(b.unit):
			v := s.vals[b.bench]
			if v == nil {
				v = new([2][]float64)
				s.vals[b.bench] = v
				s.units[b.bench] = b.unit
				s.order = append(s.order, b.bench)
			}
			v[sideBase] = append(v[sideBase], b.value)
			v[sideCand] = append(v[sideCand], c)
		case exactUnit(b.unit):
			k := [2]string{b.bench, b.unit}
			v := s.exactVals[k]
			if v == nil {
				v = new([2][]float64)
				s.exactVals[k] = v
				s.exactOrder = append(s.exactOrder, k)
			}
			v[sideBase] = append(v[sideBase], b.value)
			v[sideCand] = append(v[sideCand], c)
		}
	}
}

func (s *series) names() []string { return s.order }

func (s *series) unit(name string) string { return s.units[name] }

// rounds is the number of complete pairs every benchmark has.
func (s *series) rounds() int {
	n := -1
	for _, v := range s.vals {
		if n < 0 || len(v[0]) < n {
			n = len(v[0])
		}
	}
	return max(n, 0)
}

// pairs returns the pairs by round: pairs[r][b] is benchmark b in round r.
func (s *series) pairs() [][]stats.Pair {
	n := s.rounds()
	out := make([][]stats.Pair, n)
	for r := range n {
		out[r] = make([]stats.Pair, len(s.order))
		for b, name := range s.order {
			v := s.vals[name]
			out[r][b] = stats.Pair{Base: v[sideBase][r], Cand: v[sideCand][r]}
		}
	}
	return out
}

// center is the median of one side's values of a timed benchmark.
func (s *series) center(name string, sd side) float64 {
	return stats.Median(s.vals[name][sd])
}

// exact reports the exact metrics, flagging increases.
func (s *series) exact() []BenchResult {
	var out []BenchResult
	for _, k := range s.exactOrder {
		v := s.exactVals[k]
		b, c := stats.Median(v[sideBase]), stats.Median(v[sideCand])
		br := BenchResult{Name: k[0], Unit: k[1], Base: b, Candidate: c, Pairs: len(v[0]), Exact: true, Increased: c > b}
		if c > 0 {
			br.Speedup = b / c
		}
		out = append(out, br)
	}
	return out
}
