package result

// VerdictInfo is what every renderer knows of a verdict: one row of the
// one table of verdicts (Verdicts).
type VerdictInfo struct {
	Verdict Verdict
	// Words is how a sentence says it: "faster", "not faster".
	Words string
	// Faster is true of the verdicts that claim a speedup a person may
	// rely on: winner and faster.
	Faster bool
	// Regression is true of the verdicts that fail --fail-on-regression.
	Regression bool
	// Measured is true of the verdicts that come from benchmark pairs.
	Measured bool
}

// Verdicts is the table of verdicts, in the order a report sorts them:
// the best first.
var Verdicts = []VerdictInfo{
	{Verdict: VerdictWinner, Words: "winner", Faster: true, Measured: true},
	{Verdict: VerdictFaster, Words: "faster", Faster: true, Measured: true},
	{Verdict: VerdictOverfit, Words: "overfit: faster only on the benchmarks it was shown", Measured: true},
	{Verdict: VerdictSuspect, Words: "suspect: faster by not doing the work", Measured: true},
	{Verdict: VerdictLayoutSensitive, Words: "layout-sensitive: faster in one code layout only", Measured: true},
	{Verdict: VerdictNotFaster, Words: "not faster", Measured: true},
	{Verdict: VerdictMixed, Words: "mixed", Regression: true, Measured: true},
	{Verdict: VerdictSlower, Words: "slower", Regression: true, Measured: true},
	{Verdict: VerdictPassed, Words: "tests pass"},
	{Verdict: VerdictDuplicate, Words: "duplicate"},
	{Verdict: VerdictFailed, Words: "failed"},
	{Verdict: VerdictPending, Words: "pending"},
}

// Info is v's row of Verdicts; an unknown verdict gets its own name as
// its words and no property.
func (v Verdict) Info() VerdictInfo {
	for _, i := range Verdicts {
		if i.Verdict == v {
			return i
		}
	}
	return VerdictInfo{Verdict: v, Words: string(v)}
}

// The kinds of Hack.
const (
	// HackCached: the first iteration costs what base's iterations cost,
	// and the rest almost nothing: a result kept across iterations.
	HackCached = "cached"
	// HackRemoved: an iteration costs no more than an empty loop's: the
	// compiler can remove the benchmark's body.
	HackRemoved = "removed"
)

// Hack is one sign that a candidate's speedup on a benchmark comes from
// not doing the work.
type Hack struct {
	Bench  string `json:"bench"`
	Kind   string `json:"kind"`   // HackCached or HackRemoved
	Detail string `json:"detail"` // the numbers that gave it away
}

// HoldoutResult is a candidate's speedup on the benchmarks its generators
// were shown and on those held out from them: the geometric mean of the
// benchmarks' estimates on each side.
type HoldoutResult struct {
	Shown          []string `json:"shown"`
	HeldOut        []string `json:"held_out"`
	ShownSpeedup   float64  `json:"shown_speedup"`
	HeldOutSpeedup float64  `json:"held_out_speedup"`
}
