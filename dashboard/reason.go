package dashboard

import (
	"strings"

	"github.com/optimizer-dev/optimizer/evaluator"
)

// reasonText says in one line why c got its verdict.
func reasonText(rep *evaluator.Report, c evaluator.CandidateResult) string {
	threshold := speedupText(1 + rep.MinSpeedup)
	var s string
	switch c.Verdict {
	case evaluator.VerdictWinner:
		s = "its interval " + intervalText(c.CI) + " clears " + threshold + ": the largest significant speedup"
	case evaluator.VerdictFaster:
		s = "its interval " + intervalText(c.CI) + " clears " + threshold + ", but another candidate was chosen"
	case evaluator.VerdictNotFaster:
		s = "its interval " + intervalText(c.CI) + " does not clear " + threshold
	case evaluator.VerdictSlower:
		s = "its interval " + intervalText(c.CI) + " lies below 1×: slower than base"
	case evaluator.VerdictMixed:
		s = "the benchmarks disagree: slower on " + strings.Join(c.SlowerOn, ", ")
	case evaluator.VerdictFailed:
		if c.Failure != nil {
			first, _, _ := strings.Cut(strings.TrimSpace(c.Failure.Message), "\n")
			s = string(c.Failure.Kind) + " failure: " + first
		}
	case evaluator.VerdictDuplicate:
		s = "produces the same tree as " + c.DuplicateOf + ", so it was not run again"
	case evaluator.VerdictPending:
		s = "not finished yet"
	}
	if c.Note != "" {
		if s != "" {
			s += "; "
		}
		s += c.Note
	}
	return s
}
