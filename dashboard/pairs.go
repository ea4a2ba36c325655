package dashboard

import (
	"cmp"
	"math"
	"slices"

	"github.com/optimizer-dev/optimizer/result"
	"github.com/optimizer-dev/optimizer/stats"
	"github.com/optimizer-dev/optimizer/store"
)

// The pairs plot's geometry.
const (
	pairsHeight = 200.0
	pairsLeft   = 56.0
	pairsTop    = 10.0
	pairsBottom = 170.0
)

// pairsView is one benchmark of one candidate: each pair's speedup
// (base/candidate) in the order measured, and the interval as it narrowed
// with each pair added.
type pairsView struct {
	Benchmark, Unit string
	Width, Height   float64
	Left, Right     float64
	Top, Bottom     float64
	Points          []pairPoint
	Band            string // polygon: the running interval
	Estimate        string // polyline: the running estimate
	Ticks           []tick // y axis
	XTicks          []tick
	One, Threshold  float64 // y of 1× and of the threshold; 0 when off the plot
	Final           string  // the last interval, in words
}

// pairPoint is one pair.
type pairPoint struct {
	X, Y  float64
	Title string
}

// measuredPair is a round's two samples, and when the later was taken.
type measuredPair struct {
	pair  stats.Pair
	order int
}

// newPairsViews draws one plot per measured (benchmark, unit) of c, in the
// order of its report's benchmarks.
func newPairsViews(c result.CandidateResult, samples []store.BenchSample, minSpeedup float64) []pairsView {
	type key struct{ bench, unit string }
	rounds := map[key]map[int]*measuredPair{}
	for _, s := range samples {
		k := key{s.Benchmark, s.Unit}
		if rounds[k] == nil {
			rounds[k] = map[int]*measuredPair{}
		}
		p := rounds[k][s.Round]
		if p == nil {
			p = &measuredPair{}
			rounds[k][s.Round] = p
		}
		if s.Side == "base" {
			p.pair.Base = s.Value
		} else {
			p.pair.Cand = s.Value
		}
		p.order = max(p.order, s.Order)
	}
	var out []pairsView
	for _, b := range c.Benchmarks {
		rs := rounds[key{b.Name, b.Unit}]
		if b.Aside() || len(rs) == 0 {
			continue
		}
		var pairs []measuredPair
		for _, p := range rs {
			if p.pair.Base > 0 && p.pair.Cand > 0 {
				pairs = append(pairs, *p)
			}
		}
		slices.SortFunc(pairs, func(a, b measuredPair) int { return cmp.Compare(a.order, b.order) })
		alpha := 0.05
		if b.Level > 0 && b.Level < 1 {
			alpha = 1 - b.Level
		}
		out = append(out, newPairsView(b.Name, b.Unit, pairs, alpha, minSpeedup))
	}
	return out
}

func newPairsView(bench, unit string, pairs []measuredPair, alpha, minSpeedup float64) pairsView {
	v := pairsView{
		Benchmark: bench, Unit: unit, Width: plotWidth, Height: pairsHeight,
		Left: pairsLeft, Right: plotWidth - 16, Top: pairsTop, Bottom: pairsBottom,
	}
	threshold := 1 + minSpeedup
	ratios := make([]float64, len(pairs))
	var vals []float64
	for i, p := range pairs {
		ratios[i] = p.pair.Base / p.pair.Cand
		vals = append(vals, ratios[i])
	}
	// The running interval: the estimate after each pair, from the second.
	var est []stats.Estimate
	for k := 2; k <= len(pairs); k++ {
		ps := make([]stats.Pair, k)
		for i := range ps {
			ps[i] = pairs[i].pair
		}
		e, err := stats.Compare(ps, alpha)
		if err != nil {
			break
		}
		est = append(est, e)
		vals = append(vals, e.Low, e.High)
	}
	// The axis fits the pairs, so that drift and outliers show; 1× and
	// the threshold are drawn when they lie near them.
	lo, hi := bounds(vals)
	for _, ref := range []float64{1, threshold} {
		if ref > lo/1.5 && ref < hi*1.5 {
			vals = append(vals, ref)
		}
	}
	y := newLogAxis(vals, v.Bottom, v.Top)
	n := max(len(pairs), 2)
	x := func(i int) float64 { // pair i, from 0
		return v.Left + (float64(i)+0.5)*(v.Right-v.Left)/float64(n)
	}
	for i, r := range ratios {
		v.Points = append(v.Points, pairPoint{X: x(i), Y: y.at(r),
			Title: "pair " + itoa(i+1) + ": " + speedupText(r) + " (base " + valueText(unit, pairs[i].pair.Base) +
				", candidate " + valueText(unit, pairs[i].pair.Cand) + ")"})
	}
	if len(est) > 0 {
		var xs, lo, hi, mid []float64
		for i, e := range est {
			xs = append(xs, x(i+1))
			lo, hi, mid = append(lo, y.at(e.Low)), append(hi, y.at(e.High)), append(mid, y.at(e.Speedup))
		}
		bx, by := slices.Clone(xs), slices.Clone(hi)
		for i := len(xs) - 1; i >= 0; i-- {
			bx, by = append(bx, xs[i]), append(by, lo[i])
		}
		v.Band, v.Estimate = points(bx, by), points(xs, mid)
		last := est[len(est)-1]
		v.Final = speedupText(last.Speedup) + " [" + speedupText(last.Low) + ", " + speedupText(last.High) + "] after " + itoa(last.Pairs) + " pairs"
	}
	v.Ticks = y.ticks(timesLabel)
	lo, hi = bounds(vals)
	if lo <= 1 && 1 <= hi {
		v.One = y.at(1)
	}
	if lo <= threshold && threshold <= hi {
		v.Threshold = y.at(threshold)
	}
	step := max(1, len(pairs)/10)
	for i := 0; i < len(pairs); i += step {
		v.XTicks = append(v.XTicks, tick{P: x(i), Label: itoa(i + 1)})
	}
	return v
}

// bounds are the smallest and largest positive values.
func bounds(vals []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), 0
	for _, v := range vals {
		if v > 0 && !math.IsInf(v, 0) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	return lo, hi
}
