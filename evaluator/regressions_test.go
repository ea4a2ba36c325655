package evaluator

import (
	"slices"
	"testing"
)

// TestReport_Regressions checks the --fail-on-regression gate: any
// benchmark significantly slower beyond the threshold fails it, whatever
// the verdict.
func TestReport_Regressions(t *testing.T) {
	for _, tt := range []struct {
		name string
		c    CandidateResult
		want []string
	}{
		{"Faster", CandidateResult{Name: "a", Verdict: VerdictFaster}, nil},
		{"Slower", CandidateResult{Name: "a", Verdict: VerdictSlower}, []string{"a (slower)"}},
		{"Mixed", CandidateResult{Name: "a", Verdict: VerdictMixed}, []string{"a (mixed)"}},
		{"NotFasterSlowerOnOne", CandidateResult{Name: "a", Verdict: VerdictNotFaster, SlowerOn: []string{"BenchmarkBig"}},
			[]string{"a (not-faster, but slower on BenchmarkBig)"}},
		{"NotFaster", CandidateResult{Name: "a", Verdict: VerdictNotFaster}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := (&Report{Candidates: []CandidateResult{tt.c}}).Regressions()
			if !slices.Equal(got, tt.want) {
				t.Errorf("Regressions = %q, want %q", got, tt.want)
			}
		})
	}
}
