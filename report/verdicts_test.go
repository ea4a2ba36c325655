package report

import (
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/result"
)

// TestReason_OverfitSuspect: the text, the line and the PR comment say
// what an overfit, a suspect or a layout-sensitive candidate is, never
// that it is faster.
func TestReason_OverfitSuspect(t *testing.T) {
	rep := &result.Report{MinSpeedup: 0.05, State: "finished"}
	ci := &[2]float64{1.8, 2.2}
	for _, tt := range []struct {
		c    result.CandidateResult
		want string
	}{
		{c: result.CandidateResult{Name: "o", Verdict: result.VerdictOverfit, Speedup: 2, CI: ci,
			Note: "faster on the benchmarks its generators were shown (3×), not on those held out from them (1×)"},
			want: "held-out"},
		{c: result.CandidateResult{Name: "s", Verdict: result.VerdictSuspect, Speedup: 2, CI: ci,
			Hacks: []result.Hack{{Bench: "BenchmarkX", Kind: result.HackCached, Detail: "first iteration 50µs"}}},
			want: "BenchmarkX: cached (first iteration 50µs)"},
		{c: result.CandidateResult{Name: "l", Verdict: result.VerdictLayoutSensitive, Speedup: 1.4, CI: ci,
			Note: "1.8× in the first code layout and 1× in the second"},
			want: "faster in one code layout only; 1.8× in the first code layout"},
	} {
		t.Run(string(tt.c.Verdict), func(t *testing.T) {
			reason := Reason(rep, tt.c)
			if !strings.Contains(reason, tt.want) {
				t.Errorf("Reason %q; want it to contain %q", reason, tt.want)
			}
			line := benchText(&tt.c, rep.MinSpeedup)
			if !strings.Contains(line, string(tt.c.Verdict)) || strings.Contains(line, " faster [") {
				t.Errorf("line %q; want the verdict, not faster", line)
			}
			head := commentHeadline(rep, Gate{Head: tt.c})
			if !strings.Contains(head, "**"+string(tt.c.Verdict)+"**") || strings.Contains(head, "**faster**") {
				t.Errorf("comment headline %q", head)
			}
		})
	}
}
