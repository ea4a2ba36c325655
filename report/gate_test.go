package report

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/result"
	"github.com/optimizer-dev/optimizer/stats"
)

// headReport is a report of one head, as optimizer ci sees it.
func headReport(c result.CandidateResult) *result.Report {
	return &result.Report{
		Job: "ci0123456789", Repo: "/runner/work/project", Base: "0123456789abcdef0123456789abcdef01234567",
		Parallel: 1, MinSpeedup: 0.05, Candidates: []result.CandidateResult{c}, Seconds: 151,
	}
}

func bench(name string, speedup, lo, hi float64) result.BenchResult {
	v := result.VerdictNotFaster
	switch {
	case lo >= 1.05:
		v = result.VerdictFaster
	case hi < 1:
		v = result.VerdictSlower
	}
	return result.BenchResult{Name: name, Unit: "sec/op", Base: 1e-6, Candidate: 1e-6 / speedup,
		Speedup: speedup, CI: [2]float64{lo, hi}, P: 0.001, Pairs: 12, Verdict: v}
}

// allocs is an allocs/op row beside time, with an interval as stats.Beside
// gives it: increased or decreased only when the interval excludes 1.
func allocs(name string, base, cand, lo, hi float64) result.BenchResult {
	return result.BenchResult{Name: name, Unit: "allocs/op", Base: base, Candidate: cand, Speedup: base / cand,
		CI: [2]float64{lo, hi}, P: 0.0078, Level: 0.95, Pairs: 8, Beside: true, Increased: hi < 1, Decreased: lo > 1}
}

// ciHeads are the heads the comment golden files show.
func ciHeads() map[string]result.CandidateResult {
	ci := func(lo, hi float64) *[2]float64 { return &[2]float64{lo, hi} }
	return map[string]result.CandidateResult{
		"faster": {Name: "feature", Verdict: result.VerdictWinner, Speedup: 1.42, CI: ci(1.31, 1.55), Pairs: 12,
			TestEdits: &result.TestEdits{Files: []string{"parse/parse_test.go"}, Added: []string{"parse/parse_test.go:TestParseEmpty"}, Judged: "candidate"},
			Benchmarks: []result.BenchResult{
				bench("BenchmarkParse/small", 1.9, 1.8, 2.0), bench("BenchmarkParse/large", 1.06, 0.99, 1.12),
				bench("BenchmarkEncode", 1.0, 0.98, 1.02), allocs("BenchmarkParse/small", 3, 1, 3, 3), allocs("BenchmarkEncode", 2, 2, 1, 1),
			}},
		"slower": {Name: "feature", Verdict: result.VerdictSlower, Speedup: 0.5, CI: ci(0.47, 0.53), Pairs: 6,
			Benchmarks: []result.BenchResult{bench("BenchmarkParse", 0.5, 0.47, 0.53), allocs("BenchmarkParse", 1, 4, 0.25, 0.25)}},
		"mixed": {Name: "feature", Verdict: result.VerdictMixed, Speedup: 1.2, CI: ci(1.1, 1.3), Pairs: 18,
			Benchmarks: []result.BenchResult{bench("BenchmarkSum/4", 1.89, 1.8, 1.97), bench("BenchmarkSum/1M", 0.49, 0.46, 0.52),
				bench("BenchmarkSum/100", 1.0, 0.97, 1.03)}},
		"notsettled": {Name: "feature", Verdict: result.VerdictNotFaster, Speedup: 1.04, CI: ci(0.97, 1.12), Pairs: 6,
			Note: "not settled after 6 pairs: the job's time budget ran out", Unsettled: true,
			Benchmarks: []result.BenchResult{bench("BenchmarkA", 1.04, 0.97, 1.12), bench("BenchmarkB", 1.0, 0.99, 1.01)}},
		"failedtests": {Name: "feature", Verdict: result.VerdictFailed, Failure: &result.Failure{
			Kind: result.FailTest, Tests: []string{"TestParse"}, Message: "TestParse passed at base and fails here",
			Output: "--- FAIL: TestParse (0.00s)\n    parse_test.go:12: Parse(\"a,b\") = [a], want [a b]\nFAIL\n"}},
	}
}

// lookedHead is a head as the evaluator judges it, through the rule in
// stats. It has 8 pairs of three benchmarks, where BenchmarkGetG takes
// about 1.8 times as long, and one exact metric shrinks. The head settles
// slower overall before any one benchmark's bound is attained.
func lookedHead(t *testing.T) result.CandidateResult {
	t.Helper()
	zig := []float64{0.3, -0.8, 1, -0.1, 0.6, -0.5, 0.9, -1}
	names := []string{"BenchmarkInsertG", "BenchmarkGetG", "BenchmarkDeleteG"}
	centre := []float64{0, math.Log(1.8), 0}
	var rounds [][]stats.Pair
	for r, z := range zig {
		var round []stats.Pair
		for b := range names {
			round = append(round, stats.Pair{Base: 1e-6, Cand: 1e-6 * math.Exp(centre[b]+0.05*z*float64(1+b+r%3))})
		}
		rounds = append(rounds, round)
	}
	dec := stats.Sequential{MinSpeedup: 0.05}.Look(names, rounds)
	if dec.Verdict != stats.Slower {
		t.Fatalf("the fixture is %s, want slower (%s)", dec.Verdict, dec.Reason)
	}
	c := result.CandidateResult{Name: "feature", Verdict: result.Verdict(dec.Verdict), Speedup: dec.Aggregate.Speedup,
		CI: &[2]float64{dec.Aggregate.Low, dec.Aggregate.High}, Pairs: dec.Pairs}
	for _, e := range dec.PerBench {
		c.Benchmarks = append(c.Benchmarks, result.BenchResult{Name: e.Name, Unit: "sec/op", Base: 1e-6, Candidate: 1e-6 / e.Speedup,
			Speedup: e.Speedup, CI: [2]float64{e.Low, e.High}, P: e.P, Level: e.Level, Pairs: e.Pairs, Verdict: result.Verdict(e.Verdict)})
	}
	for _, b := range dec.SlowerOn {
		c.SlowerOn = append(c.SlowerOn, names[b])
	}
	c.Benchmarks = append(c.Benchmarks, result.BenchResult{Name: "BenchmarkInsertG", Unit: "B/op", Base: 19, Candidate: 18, Exact: true})
	return c
}

// TestWriteComment_SlowerFirst is a head slower on one benchmark of three:
// the comment's top table opens with that benchmark, labelled slower,
// before the exact metric that shrank.
func TestWriteComment_SlowerFirst(t *testing.T) {
	c := lookedHead(t)
	rep := headReport(c)
	var b bytes.Buffer
	if err := Comment(&b, rep, JudgeGate(rep, c.Name, []string{GateRegression})); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	top := got[strings.Index(got, "| benchmark | unit | base | head |"):]
	top = top[:strings.Index(top, "\n\n")]
	rows := strings.Split(top, "\n")[2:]
	if len(rows) < 2 || !strings.Contains(rows[0], "`BenchmarkGetG`") || !strings.Contains(rows[0], "slower") {
		t.Errorf("the top table does not open with BenchmarkGetG, slower:\n%s", top)
	}
	golden(t, filepath.Join("testdata", "comment_slowerone.golden"), got)
}

// TestWriteComment_Golden is the pull request comment for a faster, a
// slower, a mixed, a not-settled and a failing head.
func TestWriteComment_Golden(t *testing.T) {
	for name, c := range ciHeads() {
		t.Run(name, func(t *testing.T) {
			rep := headReport(c)
			rep.Warnings = []string{"the working tree at /runner/work/project/x has uncommitted edits"}
			var b bytes.Buffer
			if err := Comment(&b, rep, JudgeGate(rep, c.Name, []string{GateRegression})); err != nil {
				t.Fatal(err)
			}
			got := b.String()
			if strings.Contains(got, "/runner/work") {
				t.Errorf("the comment names the runner's checkout:\n%s", got)
			}
			if !strings.HasPrefix(got, commentMarker+"\n### optimizer: ") {
				t.Errorf("the comment does not open with the marker and a headline:\n%s", got)
			}
			golden(t, filepath.Join("testdata", "comment_"+name+".golden"), got)
		})
	}
}

func TestJudgeGate(t *testing.T) {
	heads := ciHeads()
	for _, tt := range []struct {
		head  string
		gates []string
		want  string // "passed", "reasons" (a --fail-on gate met) or "failed" (the head failed)
		why   string // a part of the line
	}{
		{"faster", []string{GateRegression}, "passed", ""},
		{"faster", []string{GateAllocs}, "passed", ""}, // fewer allocs is no failure
		{"slower", []string{GateRegression}, "reasons", "BenchmarkParse 2.00× slower"},
		{"slower", []string{GateMixed}, "passed", ""},
		{"slower", []string{GateAllocs}, "reasons", "allocs: BenchmarkParse 1 → 4 allocs/op [4.00×, 4.00×]"},
		{"slower", []string{GateNone}, "passed", ""},
		{"mixed", []string{GateRegression}, "reasons", "BenchmarkSum/1M"},
		{"mixed", []string{GateMixed}, "reasons", "mixed:"},
		{"notsettled", []string{GateRegression, GateMixed, GateAllocs}, "passed", ""},
		{"failedtests", []string{GateNone}, "failed", "feature failed: its test failure"},
		{"failedtests", []string{GateRegression}, "failed", "TestParse passed at base"},
	} {
		t.Run(tt.head+"/"+strings.Join(tt.gates, ","), func(t *testing.T) {
			rep := headReport(heads[tt.head])
			g := JudgeGate(rep, "feature", tt.gates)
			got := "passed"
			switch {
			case g.Failed != "":
				got = "failed"
			case len(g.Reasons) > 0:
				got = "reasons"
			}
			if got != tt.want || g.Passed() != (tt.want == "passed") {
				t.Fatalf("gate %s (Passed %v: %s), want %s", got, g.Passed(), g.Line(), tt.want)
			}
			if tt.why != "" && !strings.Contains(g.Line(), tt.why) {
				t.Errorf("line %q does not say %q", g.Line(), tt.why)
			}
		})
	}
}

func TestCheckGates(t *testing.T) {
	for _, tt := range []struct {
		name  string
		gates []string
		err   string // "" when the list is good
	}{
		{"One", []string{GateRegression}, ""},
		{"Several", []string{GateRegression, GateMixed, GateAllocs}, ""},
		{"None", []string{GateNone}, ""},
		{"Unknown", []string{GateRegression, "slower"}, `"slower": want regression, mixed, allocs or none`},
		{"NoneWithOthers", []string{GateNone, GateAllocs}, "none cannot be combined with other gates"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckGates(tt.gates)
			if got := fmt.Sprint(err); (err == nil) != (tt.err == "") || (err != nil && got != tt.err) {
				t.Errorf("CheckGates(%q) = %v, want %q", tt.gates, err, tt.err)
			}
		})
	}
}

// TestJudgeGate_Allocs: --fail-on allocs fails on a significant increase
// only. A mean over b.N that moved within its interval (13.5 → 17.5
// allocs/op, [0.6×, 1.3×]) passes. A judged allocs/op row (--metric allocs)
// whose interval lies below 1 fails. An old report's exact increase still
// fails, as it did.
func TestJudgeGate_Allocs(t *testing.T) {
	judged := result.BenchResult{Name: "BenchmarkParse", Unit: "allocs/op", Base: 4, Candidate: 8, Speedup: 0.5,
		CI: [2]float64{0.5, 0.5}, Level: 0.95, Pairs: 8, Verdict: result.VerdictSlower}
	for _, tt := range []struct {
		name string
		b    result.BenchResult
		want bool // the gate fails
	}{
		{"Noise", allocs("BenchmarkParse", 13.5, 17.5, 0.6, 1.3), false},
		{"Increased", allocs("BenchmarkParse", 13, 17, 0.75, 0.78), true},
		{"Decreased", allocs("BenchmarkParse", 4, 2, 2, 2), false},
		{"Judged", judged, true},
		{"OldExact", result.BenchResult{Name: "BenchmarkParse", Unit: "allocs/op", Base: 1, Candidate: 4, Exact: true, Increased: true}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			head := result.CandidateResult{Name: "feature", Verdict: result.VerdictNotFaster, Speedup: 1, CI: &[2]float64{0.98, 1.02}, Pairs: 8,
				Benchmarks: []result.BenchResult{bench("BenchmarkParse", 1, 0.98, 1.02), tt.b}}
			g := JudgeGate(headReport(head), "feature", []string{GateAllocs})
			if g.Passed() == tt.want {
				t.Errorf("gate passed %v (%s), want failed %v", g.Passed(), g.Line(), tt.want)
			}
		})
	}
}
