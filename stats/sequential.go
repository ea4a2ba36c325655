package stats

import (
	"fmt"
	"math"
)

// Defaults for Sequential's zero fields.
const (
	DefaultMinPairs   = 6
	DefaultMaxPairs   = 30
	DefaultAlpha      = 0.05
	DefaultMinSpeedup = 0.05
)

// Sequential decides, after each new round of pairs, whether a candidate's
// verdict is settled. It spends its error budget across the looks so that
// looking often does not make false claims more likely (see LookTails). Zero
// MinPairs, MaxPairs and Alpha take the defaults. MinSpeedup is used as
// given (0 is a valid threshold), so callers set it. A Sequential is a plain
// value and Look keeps no state: it is safe for concurrent use.
type Sequential struct {
	// MinPairs is the first look; MaxPairs the last one. The caller stops
	// adding rounds at MaxPairs whatever Look says.
	MinPairs, MaxPairs int
	// Alpha bounds the chance of any false claim over the whole sequence
	// of looks: 2/3 of it guards "faster", 1/3 "slower".
	Alpha float64
	// MinSpeedup is the threshold of "faster", as a fraction: 0.05 is 5%.
	MinSpeedup float64
}

// Decision is what Look concludes from the rounds so far.
type Decision struct {
	Verdict Outcome
	// Settled is true when a stopping boundary was crossed: the verdict is
	// conclusive and more pairs would not change it. That is faster, mixed,
	// slower, or not-faster because faster is out of reach. A caller stops
	// when Settled or at MaxPairs, where the verdict stands, settled or
	// not.
	Settled bool
	// Reason says why in a few words, for the report.
	Reason string
	// Pairs is the number of rounds looked at.
	Pairs int
	// Alpha is the two-sided level this look spent: the
	// intervals below have confidence 1-Alpha, with unequal tails
	// (LookTails). When a bound is not yet attainable, Level says so and
	// that bound backs no claim.
	Alpha float64
	// Aggregate is the geometric mean over benchmarks, by round.
	Aggregate Estimate
	// PerBench holds one estimate per benchmark, in round order, each with
	// its own verdict. With several benchmarks their intervals are at
	// BenchAlpha, corrected for the number of benchmarks, since each is a
	// claim of its own (see BenchTails).
	PerBench []Estimate
	// BenchAlpha is the two-sided level of PerBench's intervals: Alpha
	// with one benchmark, less with several.
	BenchAlpha float64
	// FasterOn and SlowerOn index the benchmarks of PerBench that are
	// significantly faster by at least the threshold, and significantly
	// slower by more than it.
	FasterOn, SlowerOn []int
	// Subset is set on a not-faster verdict that is faster beyond the
	// threshold on the benchmarks of FasterOn, and significantly slower
	// (upper bound below 1) on none. It reads "faster on 2 of 13
	// benchmarks, none slower".
	Subset bool
	// Err is set when the rounds could not be used (see the Err variables):
	// the verdict is then not-faster, not settled, and PerBench holds only
	// names.
	Err error
}

func (s Sequential) withDefaults() Sequential {
	if s.MinPairs <= 0 {
		s.MinPairs = DefaultMinPairs
	}
	if s.MaxPairs <= 0 {
		s.MaxPairs = DefaultMaxPairs
	}
	s.MaxPairs = max(s.MaxPairs, s.MinPairs)
	if s.Alpha == 0 {
		s.Alpha = DefaultAlpha
	}
	s.MinSpeedup = max(s.MinSpeedup, 0)
	return s
}

// Look judges the rounds so far: rounds[r][b] is benchmark b's pair in round
// r, and names[b] its name (names may be nil). It is meant to be called after
// every round from MinPairs on; called with fewer rounds it still estimates,
// with the first look's level, but never settles.
func (s Sequential) Look(names []string, rounds [][]Pair) Decision {
	s = s.withDefaults()
	n := len(rounds)
	dec := Decision{Verdict: NotFaster, Pairs: n}
	g, d, err := roundRatios(rounds)
	if err == nil {
		err = checkAlpha(s.Alpha)
	}
	if err == nil && names != nil && len(names) != len(d) {
		err = fmt.Errorf("%d names for %d benchmarks: %w", len(names), len(d), ErrNames)
	}
	if err != nil {
		dec.Err = fmt.Errorf("look at %d rounds: %w", n, err)
		// One named, empty estimate per benchmark, so that callers
		// indexing PerBench by name do not go out of range.
		dec.PerBench = make([]Estimate, len(names))
		for b, name := range names {
			dec.PerBench[b] = Estimate{Name: name, Verdict: NotFaster}
		}
		return dec
	}
	below, above := s.LookTails(n)
	dec.Alpha = below + above
	var (
		buf  []float64
		errs [2]float64
	)
	dec.Aggregate, errs, buf = estimate(g, below, above, buf)
	// A bound whose error exceeds its budget (too few pairs yet) backs no
	// claim.
	c := claims{low: errs[0] <= below*(1+1e-9), high: errs[1] <= above*(1+1e-9)}
	bBelow, bAbove := s.BenchTails(n, len(d))
	dec.BenchAlpha = bBelow + bAbove
	dec.PerBench = make([]Estimate, len(d))
	per := make([]Estimate, len(d)) // what the claims may use
	for b := range d {
		var e Estimate
		e, errs, buf = estimate(d[b], bBelow, bAbove, buf)
		if names != nil {
			e.Name = names[b]
		}
		cb := claims{low: errs[0] <= bBelow*(1+1e-9), high: errs[1] <= bAbove*(1+1e-9)}
		per[b] = cb.usable(e)
		// The verdict shown beside the interval is read off that
		// interval, so that the two never disagree; the claims that
		// choose and gate (FasterOn, SlowerOn) use only attained bounds.
		e.Verdict = Judge(e.Low, e.High, s.MinSpeedup)
		dec.PerBench[b] = e
		if fasterBeyond(per[b], s.MinSpeedup) {
			dec.FasterOn = append(dec.FasterOn, b)
		}
		if regressed(per[b], s.MinSpeedup) {
			dec.SlowerOn = append(dec.SlowerOn, b)
		}
	}
	if !c.low && !c.high {
		dec.Reason = fmt.Sprintf("%d pairs are too few for any claim yet", n)
		return dec
	}
	agg := c.usable(dec.Aggregate)
	dec.Verdict = Decide(agg, per, s.MinSpeedup)
	dec.Subset = subset(dec.Verdict, per, s.MinSpeedup)
	dec.Settled, dec.Reason = s.settled(dec.Verdict, dec.Subset, agg, per, n)
	if dec.Settled && n < s.MaxPairs {
		if why, ok := s.pendingClaim(dec.Verdict, dec.PerBench, per, n); ok {
			dec.Settled = false
			dec.Reason += ", but " + why
		}
	}
	if n < s.MinPairs && dec.Settled {
		dec.Settled = false
		dec.Reason += fmt.Sprintf(", but %d pairs are fewer than the %d a look needs", n, s.MinPairs)
	}
	return dec
}

// claims says which bounds of a look may back a claim.
type claims struct{ low, high bool }

// usable returns e with the bounds that may not back a claim pushed out of
// reach of every threshold.
func (c claims) usable(e Estimate) Estimate {
	if !c.low {
		e.Low = 0
	}
	if !c.high {
		e.High = math.Inf(1)
	}
	return e
}

// settled says whether a verdict crossed a stopping boundary, and why, from
// the usable bounds of the look at n rounds.
func (s Sequential) settled(v Outcome, sub bool, agg Estimate, per []Estimate, n int) (bool, string) {
	m := s.MinSpeedup
	switch {
	case v == Faster || sub:
		why := fmt.Sprintf("%s: lower bound %.3f >= %.3f", v, agg.Low, 1+m)
		if sub {
			why = fmt.Sprintf("faster on %d of %d benchmarks, none slower", countFaster(per, m), len(per))
		}
		if n >= s.MaxPairs {
			return true, why
		}
		// Faster on a subset, while faster overall is still in reach:
		// more pairs may show the whole gain.
		if sub && agg.High >= 1+m {
			return false, fmt.Sprintf("faster on %d of %d benchmarks, and perhaps overall (upper bound %.3f)", countFaster(per, m), len(per), agg.High)
		}
		// A benchmark that looks like a regression beyond the threshold,
		// but not yet significantly, could still turn faster into mixed.
		for _, e := range per {
			if e.Speedup < 1/(1+m) && !regressed(e, m) {
				return false, fmt.Sprintf("faster, but %s may be a regression", nameOr(e.Name, "a benchmark"))
			}
		}
		return true, why
	case v == Mixed:
		return true, fmt.Sprintf("mixed: %d benchmarks significantly slower beyond the threshold", countRegressed(per, m))
	case v == Slower:
		why := fmt.Sprintf("slower: upper bound %.3f < 1", agg.High)
		if n >= s.MaxPairs {
			return true, why
		}
		// Benchmarks that look as if they disagree in direction, but not
		// yet significantly, could still turn slower into mixed.
		if why, ok := mayBeMixed(per, m); ok {
			return false, "slower overall, but " + why
		}
		return true, why
	}
	if agg.High < 1+m {
		// A benchmark that looks faster beyond the threshold, but not yet
		// significantly, could still be a gain on a subset.
		if e, ok := mayBeFaster(per, m); ok {
			return false, fmt.Sprintf("not faster overall, but %s may be faster", nameOr(e.Name, "a benchmark"))
		}
		if why, ok := mayBeMixed(per, m); ok {
			return false, "not faster overall, but " + why
		}
		return true, fmt.Sprintf("not faster: upper bound %.3f < %.3f", agg.High, 1+m)
	}
	if agg.Low == 0 || math.IsInf(agg.High, 1) {
		return false, fmt.Sprintf("%d pairs are too few for both bounds yet", n)
	}
	return false, fmt.Sprintf("interval %.3f–%.3f straddles the thresholds", agg.Low, agg.High)
}

// pendingClaim names a benchmark that is clearly faster (or slower) beyond
// the threshold, but not yet claimed so, when a later look can claim it.
// Clearly: its interval as shown clears the threshold, or its estimate is
// beyond the threshold with an unadjusted p-value within Alpha. With k
// benchmarks the corrected bound (BenchTails) needs more pairs than the
// aggregate's: 10 for "faster" with 8 benchmarks, where the aggregate
// needs 8. A look that settled then would leave a clear change unclaimed
// and unnamed. shown holds the benchmarks' intervals, usable the bounds
// that may claim. When every benchmark's estimate is beyond the threshold
// the way verdict v is, the aggregate's claim already says it of all of
// them, and nothing is pending.
func (s Sequential) pendingClaim(v Outcome, shown, usable []Estimate, n int) (string, bool) {
	m, k := s.MinSpeedup, len(shown)
	uniform := v == Faster || v == Slower
	for _, e := range shown {
		uniform = uniform && (v == Faster && e.Speedup >= 1+m || v == Slower && e.Speedup < 1/(1+m))
	}
	if uniform || k < 2 {
		return "", false
	}
	for b, e := range shown {
		sure := e.P <= s.Alpha
		var side string
		switch {
		case (fasterBeyond(e, m) || sure && e.Speedup >= 1+m) && !fasterBeyond(usable[b], m) && s.laterClaim(n, k, fasterShare):
			side = "faster"
		case (regressed(e, m) || sure && e.Speedup < 1/(1+m)) && !regressed(usable[b], m) && s.laterClaim(n, k, 1-fasterShare):
			side = "slower"
		default:
			continue
		}
		return fmt.Sprintf("%s looks %s (%.3f, interval %.3f–%.3f) and %d pairs are too few to claim one benchmark of %d",
			nameOr(e.Name, "a benchmark"), side, e.Speedup, e.Low, e.High, n, k), true
	}
	return "", false
}

// laterClaim reports whether a look after the one at n rounds, up to
// MaxPairs, attains the per-benchmark bound of the side whose share of
// Alpha is share, with k benchmarks.
func (s Sequential) laterClaim(n, k int, share float64) bool {
	alpha := share * s.Alpha / float64(max(k, 1))
	for m := n + 1; m <= s.MaxPairs; m++ {
		if attainable(m, s.tail(m, alpha)) > 0 {
			return true
		}
	}
	return false
}

// mayBeFaster returns a benchmark that looks faster beyond the threshold,
// but not yet significantly.
func mayBeFaster(per []Estimate, m float64) (Estimate, bool) {
	for _, e := range per {
		if e.Speedup >= 1+m && !fasterBeyond(e, m) {
			return e, true
		}
	}
	return Estimate{}, false
}

// mayBeMixed says whether more pairs could make the verdict mixed. That is
// when some benchmark is, or looks, faster beyond the threshold while
// another is, or looks, slower beyond it, and not both yet significantly.
func mayBeMixed(per []Estimate, m float64) (string, bool) {
	var fast, slow *Estimate
	sure := [2]bool{}
	for i := range per {
		e := &per[i]
		switch {
		case fasterBeyond(*e, m):
			fast, sure[0] = e, true
		case e.Speedup >= 1+m && fast == nil:
			fast = e
		case regressed(*e, m):
			slow, sure[1] = e, true
		case e.Speedup < 1/(1+m) && slow == nil:
			slow = e
		}
	}
	if fast == nil || slow == nil || sure[0] && sure[1] {
		return "", false
	}
	return fmt.Sprintf("%s may be faster and %s slower", nameOr(fast.Name, "a benchmark"), nameOr(slow.Name, "another")), true
}

func countFaster(per []Estimate, m float64) int {
	n := 0
	for _, e := range per {
		if fasterBeyond(e, m) {
			n++
		}
	}
	return n
}

func countRegressed(per []Estimate, m float64) int {
	n := 0
	for _, e := range per {
		if regressed(e, m) {
			n++
		}
	}
	return n
}

func nameOr(name, alt string) string {
	if name == "" {
		return alt
	}
	return name
}
