package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/optimizer-dev/optimizer/evaluator"
)

// errHeadFailed is returned, wrapped, by optimizer ci when the pull
// request's head itself failed: it does not apply, build or pass its tests,
// or its benchmarks error. It exits 4, apart from a regression's 3.
var errHeadFailed = errors.New("the head failed")

// gate is optimizer ci's judgement of the head: whether the head failed,
// and which --fail-on conditions it meets.
type gate struct {
	head    evaluator.CandidateResult
	gates   []string     // --fail-on
	failed  string       // why the head failed, "" when it did not
	reasons []gateReason // the --fail-on conditions met
}

// gateReason is one --fail-on condition a head met, with its evidence.
type gateReason struct {
	gate     string // regression, mixed or allocs
	evidence string
}

// judgeGate judges the candidate named head in rep against the gates.
func judgeGate(rep *evaluator.Report, head string, gates []string) gate {
	g := gate{gates: gates}
	i := slices.IndexFunc(rep.Candidates, func(c evaluator.CandidateResult) bool { return c.Name == head })
	if i < 0 {
		g.failed = "the head has no result"
		return g
	}
	g.head = rep.Candidates[i]
	switch c := g.head; c.Verdict {
	case evaluator.VerdictFailed:
		g.failed = "its " + reason(rep, c)
		return g
	case evaluator.VerdictPending:
		g.failed = "it was not evaluated to the end"
		return g
	}
	m := rep.MinSpeedup
	for _, name := range gates {
		switch name {
		case gateRegression:
			var slower []string
			for _, b := range g.head.Benchmarks {
				if benchSlower(g.head, b, m) {
					slower = append(slower, fmt.Sprintf("%s %s %s", b.Name, slowdownText(b.Speedup), slowdownCI(&b.CI)))
				}
			}
			switch {
			case len(slower) > 0:
				g.reasons = append(g.reasons, gateReason{gateRegression, strings.Join(slower, "; ")})
			case g.head.Verdict == evaluator.VerdictSlower:
				g.reasons = append(g.reasons, gateReason{gateRegression, fmt.Sprintf("%s overall %s", slowdownText(g.head.Speedup), slowdownCI(g.head.CI))})
			}
		case gateMixed:
			if g.head.Verdict == evaluator.VerdictMixed {
				g.reasons = append(g.reasons, gateReason{gateMixed, slowerBenchmarks(g.head, m)})
			}
		case gateAllocs:
			var more []string
			for _, b := range g.head.Benchmarks {
				if b.Exact && b.Increased && b.Unit == "allocs/op" {
					more = append(more, fmt.Sprintf("%s %s → %s allocs/op", b.Name, valueText(b.Unit, b.Base), valueText(b.Unit, b.Candidate)))
				}
			}
			if len(more) > 0 {
				g.reasons = append(g.reasons, gateReason{gateAllocs, strings.Join(more, "; ")})
			}
		}
	}
	return g
}

// significantlySlower reports whether benchmark b is significantly slower
// than base by more than the threshold: its interval's upper bound is below
// 1/(1+minSpeedup). Exact metrics are never tested.
func significantlySlower(b evaluator.BenchResult, minSpeedup float64) bool {
	return !b.Exact && b.CI[1] > 0 && b.CI[1] < 1/(1+minSpeedup)
}

// slowdownText is a speedup below 1 as a slowdown: 0.50× is "2.00× slower".
func slowdownText(speedup float64) string {
	if speedup <= 0 || speedup >= 1 {
		return speedupText(speedup)
	}
	return speedupText(1/speedup) + " slower"
}

// passed reports whether the job may pass.
func (g gate) passed() bool { return g.failed == "" && len(g.reasons) == 0 }

// err is the gate as run's error, nil when it passed: its message is
// line, and it wraps errHeadFailed or errRegression for the exit code.
func (g gate) err() error {
	switch {
	case g.failed != "":
		return &gateError{line: g.line(), kind: errHeadFailed}
	case len(g.reasons) > 0:
		return &gateError{line: g.line(), kind: errRegression}
	}
	return nil
}

// gateError is a failed gate: its line, and the sentinel that picks the
// exit code.
type gateError struct {
	line string
	kind error
}

func (e *gateError) Error() string { return e.line }
func (e *gateError) Unwrap() error { return e.kind }

// line is the gate's outcome in one line of the CI log.
func (g gate) line() string {
	switch {
	case g.failed != "":
		return fmt.Sprintf("gate failed: %s failed: %s", g.head.Name, g.failed)
	case len(g.reasons) > 0:
		parts := make([]string, len(g.reasons))
		for i, r := range g.reasons {
			parts[i] = r.gate + ": " + r.evidence
		}
		return "gate failed (--fail-on " + strings.Join(g.gates, ",") + "): " + strings.Join(parts, "; ")
	}
	return "gate passed (--fail-on " + strings.Join(g.gates, ",") + ")"
}
