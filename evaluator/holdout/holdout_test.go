package holdout

import (
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/result"
)

// TestJudge: a candidate faster on the shown benchmarks and not on
// the held-out ones is overfit, even one the hack check made suspect. One
// faster on both keeps its verdict. One without a claim, or without rows on
// both sides, is left alone.
func TestJudge(t *testing.T) {
	row := func(name string, speedup float64) result.BenchResult {
		return result.BenchResult{Name: name, Unit: "sec/op", Speedup: speedup, CI: [2]float64{speedup * 0.9, speedup * 1.1}, Level: 0.95}
	}
	held := []string{"BenchmarkC"}
	for _, tt := range []struct {
		name    string
		res     result.CandidateResult
		want    result.Verdict
		changed bool
	}{
		{name: "SpecialCased", want: result.VerdictOverfit, changed: true, res: result.CandidateResult{Verdict: result.VerdictFaster,
			Benchmarks: []result.BenchResult{row("BenchmarkA", 3), row("BenchmarkB/n=10", 2.5), row("BenchmarkC/n=10", 1.01)},
			FasterOn:   []string{"BenchmarkA", "BenchmarkB/n=10"}}},
		{name: "HeldOutSlower", want: result.VerdictOverfit, changed: true, res: result.CandidateResult{Verdict: result.VerdictMixed,
			Benchmarks: []result.BenchResult{row("BenchmarkA", 3), row("BenchmarkC", 0.5)},
			FasterOn:   []string{"BenchmarkA"}, SlowerOn: []string{"BenchmarkC"}}},
		{name: "NotFasterButShownFaster", want: result.VerdictOverfit, changed: true, res: result.CandidateResult{Verdict: result.VerdictNotFaster,
			Benchmarks: []result.BenchResult{row("BenchmarkA", 2), row("BenchmarkC", 0.98)},
			FasterOn:   []string{"BenchmarkA"}, Qualifier: result.QualifierFasterOnSome}},
		{name: "Honest", want: result.VerdictFaster, changed: true, res: result.CandidateResult{Verdict: result.VerdictFaster,
			Benchmarks: []result.BenchResult{row("BenchmarkA", 2), row("BenchmarkB", 2.1), row("BenchmarkC", 1.9),
				{Name: "BenchmarkC", Unit: "allocs/op", Beside: true, Decreased: true, Speedup: 2, CI: [2]float64{2, 2}}},
			FasterOn: []string{"BenchmarkA", "BenchmarkB", "BenchmarkC"}}},
		{name: "HeldOutNoise", want: result.VerdictOverfit, changed: true, res: result.CandidateResult{Verdict: result.VerdictFaster,
			Benchmarks: []result.BenchResult{row("BenchmarkA", 3), row("BenchmarkC", 1.07)},
			FasterOn:   []string{"BenchmarkA"}}},
		{name: "SuspectSpecialCased", want: result.VerdictOverfit, changed: true, res: result.CandidateResult{Verdict: result.VerdictSuspect,
			Benchmarks: []result.BenchResult{row("BenchmarkA", 5000), row("BenchmarkC", 0.96)}, FasterOn: []string{"BenchmarkA"},
			Hacks: []result.Hack{{Bench: "BenchmarkA", Kind: result.HackRemoved}}}},
		{name: "SuspectEverywhere", want: result.VerdictSuspect, changed: true, res: result.CandidateResult{Verdict: result.VerdictSuspect,
			Benchmarks: []result.BenchResult{row("BenchmarkA", 5000), row("BenchmarkC", 4000)}, FasterOn: []string{"BenchmarkA", "BenchmarkC"},
			Hacks: []result.Hack{{Bench: "BenchmarkA", Kind: result.HackRemoved}, {Bench: "BenchmarkC", Kind: result.HackRemoved}}}},
		{name: "NoClaim", want: result.VerdictNotFaster, changed: true, res: result.CandidateResult{Verdict: result.VerdictNotFaster,
			Benchmarks: []result.BenchResult{row("BenchmarkA", 1.04), row("BenchmarkC", 0.99)}}},
		{name: "NoHeldOutRow", want: result.VerdictFaster, res: result.CandidateResult{Verdict: result.VerdictFaster,
			Benchmarks: []result.BenchResult{row("BenchmarkA", 2)}, FasterOn: []string{"BenchmarkA"}}},
		{name: "Failed", want: result.VerdictFailed, res: result.CandidateResult{Verdict: result.VerdictFailed}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := tt.res
			changed := Judge(&res, held, 0.05)
			if res.Verdict != tt.want || changed != tt.changed {
				t.Fatalf("verdict %s, changed %v; want %s, %v (note %q)", res.Verdict, changed, tt.want, tt.changed, res.Note)
			}
			if !changed {
				return
			}
			h := res.Holdout
			if h == nil || len(h.Shown) == 0 || len(h.HeldOut) == 0 || h.HeldOutSpeedup <= 0 || h.ShownSpeedup <= 0 {
				t.Fatalf("holdout %+v; want both sides with their speedups", h)
			}
			for _, name := range h.HeldOut {
				if !strings.HasPrefix(name, "BenchmarkC") {
					t.Errorf("%s is counted as held out", name)
				}
			}
			if tt.want == result.VerdictOverfit && (res.Qualifier != "" || !strings.Contains(res.Note, "held out")) {
				t.Errorf("qualifier %q, note %q; want none and a note that says why", res.Qualifier, res.Note)
			}
		})
	}
}
