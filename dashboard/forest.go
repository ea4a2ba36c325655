package dashboard

import (
	"github.com/optimizer-dev/optimizer/result"
)

// The forest plot's geometry, in SVG user units.
const (
	plotWidth   = 760.0
	forestLabel = 220.0 // the label column
	forestRowH  = 22.0
	forestAxisH = 34.0
)

// forestView is a forest plot: one row per candidate (or per candidate and
// benchmark), its speedup and interval on a log axis, with 1× and the
// threshold as vertical lines.
type forestView struct {
	Width, Height  float64
	Left, Right    float64 // the plotting area's x range
	Bottom         float64 // the axis' y
	Rows           []forestRow
	Ticks          []tick
	One, Threshold float64 // x of 1× and of 1+min-speedup
	ThresholdLabel string
	MarkClass      string // "mark" for candidates, "bmark" for benchmarks
}

// forestRow is one estimate.
type forestRow struct {
	Y           float64
	Label       string
	Verdict     string // CSS class
	X, X1, X2   float64
	Title       string // the numbers, for a tooltip
	HasInterval bool
}

// forestEstimate is one row's input.
type forestEstimate struct {
	label, verdict string
	speedup        float64
	ci             *[2]float64
}

// newForest lays out rows of estimates; nil when there are none.
func newForest(rows []forestEstimate, minSpeedup float64, markClass string) *forestView {
	if len(rows) == 0 {
		return nil
	}
	threshold := 1 + minSpeedup
	vals := []float64{1, threshold}
	for _, r := range rows {
		vals = append(vals, r.speedup)
		if r.ci != nil {
			vals = append(vals, r.ci[0], r.ci[1])
		}
	}
	f := &forestView{
		Width: plotWidth, Left: forestLabel, Right: plotWidth - 16,
		Height:         float64(len(rows))*forestRowH + forestAxisH + 8,
		ThresholdLabel: speedupText(threshold),
		MarkClass:      markClass,
	}
	ax := newLogAxis(vals, f.Left, f.Right)
	f.Bottom = float64(len(rows))*forestRowH + 8
	f.Ticks = ax.ticks(timesLabel)
	f.One, f.Threshold = ax.at(1), ax.at(threshold)
	for i, r := range rows {
		row := forestRow{
			Y: 8 + forestRowH*(float64(i)+0.5), Label: r.label, Verdict: r.verdict,
			X: ax.at(r.speedup), X1: ax.at(r.speedup), X2: ax.at(r.speedup),
			Title: r.label + ": " + speedupText(r.speedup) + " " + intervalText(r.ci, minSpeedup),
		}
		if r.verdict != "" {
			row.Title += ", " + r.verdict
		}
		if r.ci != nil {
			row.X1, row.X2, row.HasInterval = ax.at(r.ci[0]), ax.at(r.ci[1]), true
		}
		f.Rows = append(f.Rows, row)
	}
	return f
}

// candidateForest is the job's forest plot: one row per benchmarked
// candidate, in report order.
func candidateForest(rep *result.Report) *forestView {
	var rows []forestEstimate
	for _, c := range rep.Candidates {
		if !benchmarked(c) {
			continue
		}
		rows = append(rows, forestEstimate{label: c.Name, verdict: string(c.Verdict), speedup: c.Speedup, ci: c.CI})
	}
	return newForest(rows, rep.MinSpeedup, "mark")
}

// benchmarkForest has one row per candidate and measured benchmark.
func benchmarkForest(rep *result.Report) *forestView {
	var rows []forestEstimate
	for _, c := range rep.Candidates {
		for _, b := range c.Benchmarks {
			if b.Aside() || b.Speedup <= 0 {
				continue
			}
			ci := b.CI
			verdict := string(b.Label(rep.MinSpeedup))
			rows = append(rows, forestEstimate{label: c.Name + " " + b.Name, verdict: verdict, speedup: b.Speedup, ci: &ci})
		}
	}
	return newForest(rows, rep.MinSpeedup, "bmark")
}

// benchmarked reports whether c has a measured speedup to plot.
func benchmarked(c result.CandidateResult) bool {
	return c.Speedup > 0 && len(c.Benchmarks) > 0
}
