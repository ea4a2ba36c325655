package stats

// Outcome is the statistical outcome of comparing a candidate with base,
// as DESIGN.md defines it: faster, slower, mixed or not-faster. Its values
// are the same strings as the evaluator's verdicts of those names; the
// evaluator's Verdict adds what statistics do not decide (winner, failed,
// duplicate, passed, pending).
type Outcome string

// The outcomes.
const (
	// Faster: the aggregate interval's lower bound is at least 1+minSpeedup,
	// and no benchmark is significantly slower by more than the threshold.
	Faster Outcome = "faster"
	// Slower: the aggregate interval's upper bound is below 1.
	Slower Outcome = "slower"
	// Mixed: the benchmarks significantly disagree in direction, whatever
	// the aggregate. Some benchmark is significantly slower by more than
	// the threshold (its upper bound is below 1/(1+minSpeedup)). Meanwhile
	// the aggregate, or some benchmark, is faster beyond the threshold.
	Mixed Outcome = "mixed"
	// NotFaster: everything else. A not-faster candidate may still be
	// faster on some of its benchmarks (Decision.Subset).
	NotFaster Outcome = "not-faster"
)

// Decide applies the verdicts to an aggregate estimate and the estimates of
// the benchmarks behind it. It looks at the intervals only. Whether they
// are at a level that may be trusted, and corrected for the number of
// benchmarks, is the caller's business (Sequential.Look sees to it).
func Decide(agg Estimate, per []Estimate, minSpeedup float64) Outcome {
	faster, slower := 0, 0
	for _, e := range per {
		if fasterBeyond(e, minSpeedup) {
			faster++
		}
		if regressed(e, minSpeedup) {
			slower++
		}
	}
	switch {
	case slower > 0 && (faster > 0 || fasterBeyond(agg, minSpeedup)):
		return Mixed
	case fasterBeyond(agg, minSpeedup):
		return Faster
	case agg.High < 1:
		return Slower
	}
	return NotFaster
}

// subset reports whether a not-faster verdict is faster on some benchmarks
// beyond the threshold and significantly slower on none. Then the candidate
// sped up what it was meant to and left the rest alone.
func subset(v Outcome, per []Estimate, minSpeedup float64) bool {
	if v != NotFaster {
		return false
	}
	some := false
	for _, e := range per {
		if e.High < 1 {
			return false
		}
		some = some || fasterBeyond(e, minSpeedup)
	}
	return some
}

// fasterBeyond reports whether an estimate is significantly faster by at
// least the threshold.
func fasterBeyond(e Estimate, minSpeedup float64) bool {
	return FasterBeyond(e.Low, minSpeedup)
}

// regressed reports whether a benchmark is significantly slower by more
// than the threshold.
func regressed(e Estimate, minSpeedup float64) bool {
	return SlowerBeyond(e.High, minSpeedup)
}

// FasterBeyond is the rule for "significantly faster by at least the
// threshold" on an interval's lower bound: low >= 1 + minSpeedup. Readers
// of old reports, which lack the verdicts it made, apply it themselves.
func FasterBeyond(low, minSpeedup float64) bool { return low >= 1+minSpeedup }

// SlowerBeyond is the rule for "significantly slower by more than the
// threshold" on an interval's upper bound: high < 1/(1 + minSpeedup).
func SlowerBeyond(high, minSpeedup float64) bool { return high < 1/(1+minSpeedup) }

// Judge is one benchmark's own verdict on its interval [low, high] alone,
// for the report: faster when low clears 1+minSpeedup, slower when the
// whole interval lies below 1, not-faster otherwise. Reports label a
// benchmark row with it, so that the label always agrees with the
// interval printed beside it.
func Judge(low, high, minSpeedup float64) Outcome {
	switch {
	case FasterBeyond(low, minSpeedup):
		return Faster
	case high > 0 && high < 1:
		return Slower
	}
	return NotFaster
}
