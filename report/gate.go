package report

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/optimizer-dev/optimizer/result"
)

// The --fail-on gates of optimizer ci.
const (
	GateRegression = "regression" // slower overall, or any benchmark significantly slower
	GateMixed      = "mixed"      // benchmarks significantly disagree in direction
	GateAllocs     = "allocs"     // allocs/op significantly increased on some benchmark
	GateNone       = "none"       // no performance gate; a failing head still fails
)

// CheckGates checks a list of --fail-on gates: each is one of the Gate
// constants, and GateNone stands alone.
func CheckGates(gates []string) error {
	for _, g := range gates {
		if !slices.Contains([]string{GateRegression, GateMixed, GateAllocs, GateNone}, g) {
			return fmt.Errorf("%q: want regression, mixed, allocs or none", g)
		}
	}
	if slices.Contains(gates, GateNone) && len(gates) > 1 {
		return errors.New("none cannot be combined with other gates")
	}
	return nil
}

// Gate is optimizer ci's judgement of the head: whether the head failed,
// and which --fail-on conditions it meets.
type Gate struct {
	Head    result.CandidateResult
	Gates   []string     // --fail-on
	Failed  string       // why the head failed, "" when it did not
	Reasons []GateReason // the --fail-on conditions met
}

// GateReason is one --fail-on condition a head met, with its evidence.
type GateReason struct {
	Gate     string // GateRegression, GateMixed or GateAllocs
	Evidence string
}

// JudgeGate judges the candidate named head in rep against the gates.
func JudgeGate(rep *result.Report, head string, gates []string) Gate {
	g := Gate{Gates: gates}
	i := slices.IndexFunc(rep.Candidates, func(c result.CandidateResult) bool { return c.Name == head })
	if i < 0 {
		g.Failed = "the head has no result"
		return g
	}
	g.Head = rep.Candidates[i]
	switch c := g.Head; c.Verdict {
	case result.VerdictFailed:
		g.Failed = "its " + Reason(rep, c)
		return g
	case result.VerdictPending:
		g.Failed = "it was not evaluated to the end"
		return g
	}
	m := rep.MinSpeedup
	for _, name := range gates {
		switch name {
		case GateRegression:
			var slower []string
			for _, b := range g.Head.Benchmarks {
				if g.Head.BenchSlower(b, m) {
					slower = append(slower, fmt.Sprintf("%s %s %s", b.Name, slowdownText(b.Speedup), slowdownCI(&b.CI)))
				}
			}
			switch {
			case len(slower) > 0:
				g.Reasons = append(g.Reasons, GateReason{GateRegression, strings.Join(slower, "; ")})
			case g.Head.Verdict == result.VerdictSlower:
				g.Reasons = append(g.Reasons, GateReason{GateRegression, fmt.Sprintf("%s overall %s", slowdownText(g.Head.Speedup), slowdownCI(g.Head.CI))})
			}
		case GateMixed:
			if g.Head.Verdict == result.VerdictMixed {
				g.Reasons = append(g.Reasons, GateReason{GateMixed, slowerBenchmarks(g.Head, m)})
			}
		case GateAllocs:
			var more []string
			for _, b := range g.Head.Benchmarks {
				if b.Unit == "allocs/op" && (b.Increased || !b.Aside() && b.CI[1] > 0 && b.CI[1] < 1) {
					more = append(more, fmt.Sprintf("%s %s → %s allocs/op %s", b.Name, valueText(b.Unit, b.Base), valueText(b.Unit, b.Candidate), slowdownCI(&b.CI)))
				}
			}
			if len(more) > 0 {
				g.Reasons = append(g.Reasons, GateReason{GateAllocs, strings.Join(more, "; ")})
			}
		}
	}
	return g
}

// slowdownText is a speedup below 1 as a slowdown: 0.50× is "2.00× slower".
func slowdownText(speedup float64) string {
	if speedup <= 0 || speedup >= 1 {
		return speedupText(speedup)
	}
	return speedupText(1/speedup) + " slower"
}

// Passed reports whether the job may pass.
func (g Gate) Passed() bool { return g.Failed == "" && len(g.Reasons) == 0 }

// Line is the gate's outcome in one line of the CI log.
func (g Gate) Line() string {
	switch {
	case g.Failed != "":
		return fmt.Sprintf("gate failed: %s failed: %s", g.Head.Name, g.Failed)
	case len(g.Reasons) > 0:
		parts := make([]string, len(g.Reasons))
		for i, r := range g.Reasons {
			parts[i] = r.Gate + ": " + r.Evidence
		}
		return "gate failed (--fail-on " + strings.Join(g.Gates, ",") + "): " + strings.Join(parts, "; ")
	}
	return "gate passed (--fail-on " + strings.Join(g.Gates, ",") + ")"
}
