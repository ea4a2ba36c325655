package scope

import (
	"fmt"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/gobench"
	"github.com/optimizer-dev/optimizer/stats"
)

// Cost is what the time a candidate's benchmarks take depends on.
type Cost struct {
	Target    time.Duration    // one sample's calibrated run time
	Seq       stats.Sequential // the looks: the first that can claim anything, and the pair cap
	Budget    time.Duration    // the most measuring may take; 0 is no budget
	FirstRuns int              // the hack check's runs of each side
	// Scale is how much longer a sample takes than at rest, on a CPU that
	// other work shares (gobench.CPUScale); 0 or 1 at rest.
	Scale float64
}

// Estimate is "; about 20s, up to 1m10s": the time benchmarks with traces
// should take to calibrate and measure. It runs from the first look that
// can claim anything to the pair cap (or the budget), plus the hack
// check's runs of each side. Each sample is taken as the calibration
// target plus what one iteration with coverage took (its set-up and
// start-up). When that is not known (a zero Trace), it is the target
// alone. A hack check's run is taken as that iteration. Samples and
// start-ups take Scale times as long; calibration runs for its target.
func (c Cost) Estimate(traces []gobench.Trace) string {
	scale := func(d time.Duration) time.Duration { return time.Duration(float64(d) * max(c.Scale, 1)) }
	var calib, pair, first time.Duration
	for _, t := range traces {
		subs := max(len(t.Subs), 1)
		var op time.Duration
		for _, s := range t.Subs {
			op += max(c.Target, time.Duration(s.SecPerOp*float64(time.Second)))
		}
		if op == 0 {
			op = time.Duration(subs) * c.Target
		}
		calib += 2*op + scale(t.Wall)
		pair += 2 * scale(op+t.Wall)
		first += 2 * scale(t.Wall)
	}
	hack := time.Duration(c.FirstRuns) * first
	low := calib + time.Duration(max(c.Seq.FirstClaim(), c.Seq.MinPairs))*pair + hack
	high := calib + time.Duration(c.Seq.MaxPairs)*pair + hack
	if c.Budget > 0 && high > calib+c.Budget {
		high = max(low, calib+c.Budget)
	}
	if high <= low {
		return "; about " + roundDuration(low)
	}
	return "; about " + roundDuration(low) + ", up to " + roundDuration(high)
}

// Runs is "; 8 to 30 pairs of one run a side, at most 5m0s each": what a
// bench command's candidate costs. A run's time is not known before the
// first, so it counts runs, from the first look that can claim anything to
// the pair cap, and gives the budget.
func (c Cost) Runs() string {
	low, high := max(c.Seq.FirstClaim(), c.Seq.MinPairs), c.Seq.MaxPairs
	s := fmt.Sprintf("; %d to %d pairs of one run a side", low, high)
	if high <= low {
		s = fmt.Sprintf("; %d pairs of one run a side", high)
	}
	if c.Budget > 0 {
		s += ", at most " + roundDuration(c.Budget) + " each (--bench-budget)"
	}
	return s
}

// roundDuration prints d to the second ("1m10s"), or to the tenth under 10 s.
func roundDuration(d time.Duration) string {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}
