package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/result"
)

// staleLabelReport has a benchmark row at 0.35× [0.34×, 0.39×] that was
// stored labelled not-faster (issue 36, item 4), beside one that is
// unchanged; its interval lies wholly below 1×, so it is slower.
func staleLabelReport() *result.Report {
	ci := [2]float64{0.34, 0.39}
	c := result.CandidateResult{Name: "feature", Verdict: result.VerdictSlower, Speedup: 0.6, CI: &[2]float64{0.5, 0.7}, Pairs: 8,
		Benchmarks: []result.BenchResult{
			{Name: "BenchmarkGet", Unit: "sec/op", Base: 1e-6, Candidate: 1e-6 / 0.35, Speedup: 0.35, CI: ci, P: 0.008, Pairs: 8,
				Verdict: result.VerdictNotFaster},
			{Name: "BenchmarkPut", Unit: "sec/op", Base: 1e-6, Candidate: 1e-6, Speedup: 1, CI: [2]float64{0.97, 1.03}, P: 0.9, Pairs: 8,
				Verdict: result.VerdictNotFaster},
		}}
	return headReport(c)
}

// rowLine is the line of out that shows benchmark name's row, from the
// first line that holds both name and its speedup.
func rowLine(t *testing.T, out, name, speedup string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, name) && strings.Contains(l, speedup) {
			return l
		}
	}
	t.Fatalf("no row of %s at %s in:\n%s", name, speedup, out)
	return ""
}

// TestLabel_Renderers: every renderer labels the row at 0.35× [0.34×,
// 0.39×] slower, by the one rule, whatever label it was stored with.
func TestLabel_Renderers(t *testing.T) {
	for _, format := range []string{FormatText, FormatMarkdown} {
		t.Run(format, func(t *testing.T) {
			var b bytes.Buffer
			if err := Write(&b, staleLabelReport(), format); err != nil {
				t.Fatal(err)
			}
			row := rowLine(t, b.String(), "BenchmarkGet", "0.350×")
			if !strings.Contains(row, "slower") || strings.Contains(row, "not-faster") {
				t.Errorf("the row at 0.35× [0.34×, 0.39×] is not labelled slower: %q", row)
			}
			if row := rowLine(t, b.String(), "BenchmarkPut", "1.00×"); !strings.Contains(row, "not-faster") {
				t.Errorf("the unchanged row is not labelled not-faster: %q", row)
			}
		})
	}
	t.Run("comment", func(t *testing.T) {
		rep := staleLabelReport()
		var b bytes.Buffer
		if err := Comment(&b, rep, JudgeGate(rep, "feature", []string{GateRegression})); err != nil {
			t.Fatal(err)
		}
		got := b.String()
		i := strings.Index(got, "| benchmark | unit | base | head |")
		if i < 0 {
			t.Fatalf("the comment has no table of changed benchmarks:\n%s", got)
		}
		top := got[i:]
		top = top[:strings.Index(top, "\n\n")]
		if !strings.Contains(top, "`BenchmarkGet`") || !strings.Contains(top, "slower") || strings.Contains(top, "BenchmarkPut") {
			t.Errorf("the changed-benchmarks table does not show BenchmarkGet, slower, alone:\n%s", top)
		}
		folded := got[strings.Index(got, "<details><summary>Every benchmark row"):]
		if row := rowLine(t, folded, "BenchmarkGet", "0.350×"); !strings.HasSuffix(row, "| slower |") {
			t.Errorf("the folded row is not labelled slower: %q", row)
		}
	})
	t.Run("json", func(t *testing.T) {
		rep := staleLabelReport()
		var b bytes.Buffer
		if err := JSON(&b, rep); err != nil {
			t.Fatal(err)
		}
		var got result.Report
		if err := json.Unmarshal(b.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		if v := got.Candidates[0].Benchmarks[0].Verdict; v != result.VerdictSlower {
			t.Errorf("JSON labels the row at 0.35× [0.34×, 0.39×] %q, want slower", v)
		}
		if v := got.Candidates[0].Benchmarks[1].Verdict; v != result.VerdictNotFaster {
			t.Errorf("JSON labels the unchanged row %q, want not-faster", v)
		}
		if v := rep.Candidates[0].Benchmarks[0].Verdict; v != result.VerdictNotFaster {
			t.Errorf("writing JSON changed the report itself: %q", v)
		}
	})
}
