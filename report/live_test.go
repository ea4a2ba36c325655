package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/result"
)

// runningReport is a job in its benchmark phase. One candidate is measured
// faster before the winner is chosen, and one is measuring. One's benchmark
// is to come, and one is still waiting for a test slot.
func runningReport(state string) *result.Report {
	return &result.Report{
		Job: "20260101-000000-0123456789ab", Repo: "/src/repo", Base: strings.Repeat("ab", 20), Parallel: 2, MinSpeedup: 0.1, State: state,
		Candidates: []result.CandidateResult{
			{Name: "quick", Verdict: result.VerdictFaster, Speedup: 1.5, CI: &[2]float64{1.3, 1.7}, Pairs: 8},
			{Name: "fast", Verdict: result.VerdictPassed, Live: &evaluator.Live{Stage: result.StageMeasuring, Pair: 7, MaxPairs: 30}},
			{Name: "later", Verdict: result.VerdictPassed, Live: &evaluator.Live{Stage: result.StageBenchQueue}},
			{Name: "last", Verdict: result.VerdictPending, Live: &evaluator.Live{Stage: result.StageQueued}},
		},
	}
}

// TestText_RunningJob: the text of a running job (optimizer show, the
// dashboard's text) says what each candidate is doing, and nothing that
// sounds final.
func TestText_RunningJob(t *testing.T) {
	for _, tt := range []struct {
		state string
		want  []string
	}{
		{"running", []string{"winner: not chosen yet", "quick: 1.50× faster; its interval [1.30×, 1.70×] clears 1.10×; the winner is chosen once every candidate is measured",
			"fast: measuring pair 7 of ≤ 30", "later: tests pass; its benchmark is still to run", "last: queued for a test slot"}},
		{"interrupted", []string{"winner: none: the job stopped before a winner was chosen", "the job stopped before a winner was chosen",
			"fast: tests pass; the job stopped during its benchmark", "later: tests pass; the job stopped before its benchmark",
			"last: not finished: the job stopped first"}},
	} {
		t.Run(tt.state, func(t *testing.T) {
			var b bytes.Buffer
			if err := Text(&b, runningReport(tt.state)); err != nil {
				t.Fatal(err)
			}
			got := b.String()
			for _, bad := range []string{"no benchmark was configured", "was chosen,", "but another", "significantly more than"} {
				if strings.Contains(got, bad) {
					t.Errorf("the %s job's text says %q:\n%s", tt.state, bad, got)
				}
			}
			for _, want := range tt.want {
				if !strings.Contains(got, want) {
					t.Errorf("the %s job's text lacks %q:\n%s", tt.state, want, got)
				}
			}
		})
	}
}
