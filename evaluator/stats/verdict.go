package stats

// Verdict is the outcome of comparing a candidate with base, as DESIGN.md
// defines it. Its values are the same strings as the evaluator's verdicts.
type Verdict string

// The verdicts.
const (
	// Faster: the aggregate interval's lower bound is at least 1+minSpeedup.
	Faster Verdict = "faster"
	// Slower: the aggregate interval's upper bound is below 1.
	Slower Verdict = "slower"
	// Mixed: faster overall, but some benchmark is significantly slower by
	// more than the threshold (its upper bound is below 1/(1+minSpeedup)).
	Mixed Verdict = "mixed"
	// NotFaster: everything else.
	NotFaster Verdict = "not-faster"
)

// Decide applies the verdicts to an aggregate estimate and the estimates of
// the benchmarks behind it. It looks at the intervals only; whether they
// are at a level that may be trusted is the caller's business
// (Sequential.Look sees to it).
func Decide(agg Estimate, per []Estimate, minSpeedup float64) Verdict {
	switch {
	case agg.Low >= 1+minSpeedup:
		for _, e := range per {
			if regressed(e, minSpeedup) {
				return Mixed
			}
		}
		return Faster
	case agg.High < 1:
		return Slower
	}
	return NotFaster
}

// regressed reports whether a benchmark is significantly slower by more
// than the threshold.
func regressed(e Estimate, minSpeedup float64) bool {
	return e.High < 1/(1+minSpeedup)
}

// judge is one benchmark's own verdict, for the report: faster, slower or
// not-faster on its interval alone.
func judge(e Estimate, minSpeedup float64) Verdict {
	switch {
	case e.Low >= 1+minSpeedup:
		return Faster
	case e.High < 1:
		return Slower
	}
	return NotFaster
}
