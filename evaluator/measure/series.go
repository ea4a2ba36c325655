package measure

import (
	"github.com/optimizer-dev/optimizer/result"
	"github.com/optimizer-dev/optimizer/stats"
)

// Series accumulates the samples of one candidate's benchmark phase. For
// each benchmark it holds the judged metric per round on both sides: time,
// unless NewSeries is told another. It also holds the metrics reported
// beside it: time when it is not judged, B/op and allocs/op, a command's
// peak memory.
type Series struct {
	judged      func(unit string) bool
	order       []string          // judged benchmarks, in first-seen order
	units       map[string]string // benchmark -> its judged unit
	vals        map[string]*[2][]float64
	beside      map[[2]string]*besideVals // (benchmark, unit) -> values
	besideOrder [][2]string
}

// besideVals are one metric's values beside the judged one, with the
// iteration count of each sample (0: unknown).
type besideVals struct {
	v     [2][]float64
	iters [2][]int64
}

// NewSeries returns an empty series that judges the metric whose unit
// judged accepts; nil judges time (TimedUnit).
func NewSeries(judged func(unit string) bool) *Series {
	if judged == nil {
		judged = TimedUnit
	}
	return &Series{judged: judged, units: map[string]string{}, vals: map[string]*[2][]float64{}, beside: map[[2]string]*besideVals{}}
}

// TimedUnit reports whether a unit is a time per operation, the metric
// that the sequential test judges by default.
func TimedUnit(unit string) bool {
	switch unit {
	case "sec/op", "ns/op", "sec":
		return true
	}
	return false
}

// AveragedUnit reports whether a unit is a mean over a benchmark's
// iterations other than time: Go's B/op and allocs/op. Such a mean may
// depend on the iteration count (an amortised slice, an allocation every
// fourth call): see Beside.
func AveragedUnit(unit string) bool { return unit == "B/op" || unit == "allocs/op" }

// PeakUnit is the unit of a command sample's peak resident memory, in bytes.
const PeakUnit = "B"

// besideUnit reports whether a metric not judged is reported beside.
func besideUnit(unit string) bool { return TimedUnit(unit) || AveragedUnit(unit) || unit == PeakUnit }

// Add records one round. A benchmark missing on either side is left out of
// this round.
func (s *Series) Add(base, cand []Metric) {
	find := func(ms []Metric, bench, unit string) (Metric, bool) {
		for _, m := range ms {
			if m.Bench == bench && m.Unit == unit {
				return m, true
			}
		}
		return Metric{}, false
	}
	for _, b := range base {
		c, ok := find(cand, b.Bench, b.Unit)
		if !ok {
			continue
		}
		switch {
		case s.judged(b.Unit):
			v := s.vals[b.Bench]
			if v == nil {
				v = new([2][]float64)
				s.vals[b.Bench] = v
				s.units[b.Bench] = b.Unit
				s.order = append(s.order, b.Bench)
			}
			v[Base] = append(v[Base], b.Value)
			v[Cand] = append(v[Cand], c.Value)
		case besideUnit(b.Unit):
			k := [2]string{b.Bench, b.Unit}
			v := s.beside[k]
			if v == nil {
				v = new(besideVals)
				s.beside[k] = v
				s.besideOrder = append(s.besideOrder, k)
			}
			v.v[Base], v.v[Cand] = append(v.v[Base], b.Value), append(v.v[Cand], c.Value)
			v.iters[Base], v.iters[Cand] = append(v.iters[Base], b.Iters), append(v.iters[Cand], c.Iters)
		}
	}
}

// Names lists the judged benchmarks, in first-seen order.
func (s *Series) Names() []string { return s.order }

// Unit is the judged unit of a benchmark.
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
// A judged average may be zero (no allocation): see stats.Positive.
func (s *Series) Pairs() [][]stats.Pair {
	n := s.Rounds()
	out := make([][]stats.Pair, n)
	for r := range out {
		out[r] = make([]stats.Pair, len(s.order))
	}
	for b, name := range s.order {
		v := s.vals[name]
		col := make([]stats.Pair, n)
		for r := range col {
			col[r] = stats.Pair{Base: v[Base][r], Cand: v[Cand][r]}
		}
		if AveragedUnit(s.units[name]) {
			col = stats.Positive(col)
		}
		for r := range col {
			out[r][b] = col[r]
		}
	}
	return out
}

// Center is the median of one side's values of a judged benchmark.
func (s *Series) Center(name string, sd Side) float64 {
	return stats.Median(s.vals[name][sd])
}

// Beside reports the metrics beside the judged one, each with its interval
// (stats.Beside, whose family error is alpha). The Go sampler runs both
// sides at one iteration count, where an average is exact unless the
// runtime adds noise. A bench command such as go test -bench picks its own
// count per sample. There an average that changes with the count on either
// side is compared only in the pairs whose samples ran the same count. So a
// mean of identical code is never a change because the counts fell
// differently. A row without such pairs has no interval, and its centres
// are over all samples.
func (s *Series) Beside(alpha float64) []result.BenchResult {
	out := make([]result.BenchResult, len(s.besideOrder))
	pairs := make([][]stats.Pair, len(s.besideOrder))
	for i, k := range s.besideOrder {
		v := s.beside[k]
		byCount := AveragedUnit(k[1]) && (dependsOnCount(v.v[Base], v.iters[Base]) || dependsOnCount(v.v[Cand], v.iters[Cand]))
		var sides [2][]float64
		for r := range v.v[Base] {
			if nb, nc := v.iters[Base][r], v.iters[Cand][r]; byCount && nb != nc {
				continue
			}
			pairs[i] = append(pairs[i], stats.Pair{Base: v.v[Base][r], Cand: v.v[Cand][r]})
			sides[Base], sides[Cand] = append(sides[Base], v.v[Base][r]), append(sides[Cand], v.v[Cand][r])
		}
		if len(pairs[i]) == 0 {
			sides = v.v
		}
		out[i] = result.BenchResult{Name: k[0], Unit: k[1], Base: stats.Median(sides[Base]), Candidate: stats.Median(sides[Cand]),
			Pairs: len(pairs[i]), Beside: true}
	}
	es, err := stats.Beside(pairs, alpha)
	if err != nil {
		return out // a value no metric can have: no intervals
	}
	for i, e := range es {
		if e.Pairs == 0 {
			continue
		}
		out[i].Speedup, out[i].CI, out[i].P, out[i].Level = e.Speedup, [2]float64{e.Low, e.High}, e.P, e.Level
		out[i].Increased, out[i].Decreased = e.Verdict == stats.Slower, e.Verdict == stats.Faster
	}
	return out
}

// dependsOnCount reports whether one side's values differ between two of
// its samples that ran different iteration counts.
func dependsOnCount(v []float64, n []int64) bool {
	for i := range v {
		for j := i + 1; j < len(v); j++ {
			if n[i] != n[j] && v[i] != v[j] {
				return true
			}
		}
	}
	return false
}
