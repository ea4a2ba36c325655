package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/evaluator"
)

// TestRegressions checks the --fail-on-regression gate: any benchmark
// significantly slower beyond the threshold fails it, whatever the verdict.
func TestRegressions(t *testing.T) {
	for _, tt := range []struct {
		name string
		c    evaluator.CandidateResult
		fail bool
	}{
		{"Faster", evaluator.CandidateResult{Name: "a", Verdict: evaluator.VerdictFaster}, false},
		{"Slower", evaluator.CandidateResult{Name: "a", Verdict: evaluator.VerdictSlower}, true},
		{"Mixed", evaluator.CandidateResult{Name: "a", Verdict: evaluator.VerdictMixed}, true},
		{"NotFasterSlowerOnOne", evaluator.CandidateResult{Name: "a", Verdict: evaluator.VerdictNotFaster,
			SlowerOn: []string{"BenchmarkBig"}}, true},
		{"NotFaster", evaluator.CandidateResult{Name: "a", Verdict: evaluator.VerdictNotFaster}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := regressions(&evaluator.Report{Candidates: []evaluator.CandidateResult{tt.c}})
			if got := errors.Is(err, errRegression); got != tt.fail {
				t.Errorf("regressions = %v, want failing %v", err, tt.fail)
			}
			if tt.fail && len(tt.c.SlowerOn) > 0 && !strings.Contains(err.Error(), "BenchmarkBig") {
				t.Errorf("regressions = %v, want the slower benchmark named", err)
			}
		})
	}
}
