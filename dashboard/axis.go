package dashboard

import (
	"math"
	"strconv"
	"strings"
)

// A logAxis maps values in [lo, hi] to pixels in [p0, p1] on a log scale.
// p1 may be below p0 (a vertical axis drawn upwards).
type logAxis struct {
	lo, hi, p0, p1 float64
}

// newLogAxis is an axis that shows every value of vals (positive ones;
// others are left out), with a margin.
func newLogAxis(vals []float64, p0, p1 float64) logAxis {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vals {
		if v > 0 && !math.IsInf(v, 0) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if math.IsInf(lo, 1) {
		lo, hi = 0.5, 2
	}
	pad := math.Max(math.Log(hi/lo)*0.08, 0.02)
	return logAxis{lo: lo * math.Exp(-pad), hi: hi * math.Exp(pad), p0: p0, p1: p1}
}

// at is the pixel of v, clamped to the axis.
func (a logAxis) at(v float64) float64 {
	if !(v > 0) {
		v = a.lo
	}
	f := (math.Log(v) - math.Log(a.lo)) / (math.Log(a.hi) - math.Log(a.lo))
	f = math.Max(0, math.Min(1, f))
	return a.p0 + f*(a.p1-a.p0)
}

// A tick is a labelled position on an axis.
type tick struct {
	P     float64
	Label string
}

// ticks are 1-2-5 values inside the axis: only powers of 10 when those are
// too many, and finer steps when the axis is too narrow for three.
func (a logAxis) ticks(label func(float64) string) []tick {
	var out []tick
	for _, steps := range [][]float64{{1, 2, 5}, {1}, {1, 1.5, 2, 3, 4, 5, 6, 7, 8}, {1, 1.2, 1.4, 1.6, 1.8, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9}} {
		out = out[:0]
		for e := math.Floor(math.Log10(a.lo)); e <= math.Ceil(math.Log10(a.hi)); e++ {
			for _, s := range steps {
				v := s * math.Pow(10, e)
				if v >= a.lo && v <= a.hi {
					out = append(out, tick{P: a.at(v), Label: label(v)})
				}
			}
		}
		if len(out) >= 3 && len(out) <= 9 {
			break
		}
	}
	return out
}

// timesLabel labels a speedup tick: "0.5×", "1×", "200×".
func timesLabel(v float64) string { return trimFloat(v) + "×" }

func trimFloat(v float64) string {
	s := strconv.FormatFloat(v, 'f', 3, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}

// A linAxis maps [lo, hi] to [p0, p1] linearly.
type linAxis struct {
	lo, hi, p0, p1 float64
}

// newLinAxis is an axis from 0 (or below, for negative values) to a little
// over the largest value.
func newLinAxis(vals []float64, p0, p1 float64) linAxis {
	hi := 0.0
	lo := 0.0
	for _, v := range vals {
		hi, lo = math.Max(hi, v), math.Min(lo, v)
	}
	if hi == lo {
		hi = lo + 1
	}
	return linAxis{lo: lo, hi: hi * 1.1, p0: p0, p1: p1}
}

func (a linAxis) at(v float64) float64 {
	return a.p0 + (v-a.lo)/(a.hi-a.lo)*(a.p1-a.p0)
}

// ticks are about n round values inside the axis.
func (a linAxis) ticks(n int, label func(float64) string) []tick {
	step := math.Pow(10, math.Floor(math.Log10((a.hi-a.lo)/float64(n))))
	for _, m := range []float64{1, 2, 5, 10} {
		if (a.hi-a.lo)/(step*m) <= float64(n) {
			step *= m
			break
		}
	}
	var out []tick
	for v := math.Ceil(a.lo/step) * step; v <= a.hi; v += step {
		out = append(out, tick{P: a.at(v), Label: label(v)})
	}
	return out
}

// points is an SVG points attribute: "x1,y1 x2,y2 …".
func points(xs, ys []float64) string {
	var b strings.Builder
	for i := range xs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatFloat(xs[i], 'f', 1, 64))
		b.WriteByte(',')
		b.WriteString(strconv.FormatFloat(ys[i], 'f', 1, 64))
	}
	return b.String()
}
