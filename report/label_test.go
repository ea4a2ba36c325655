package report

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/result"
	"github.com/optimizer-dev/optimizer/stats"
)

// staleLabelReport has a benchmark row at 0.35× [0.34×, 0.39×] that was
// stored labelled not-faster (issue 36, item 4), beside one that is
// unchanged. Its interval lies wholly below 1×, so it is slower.
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

// rowsReport has a row whose stored medians (6.95 ns against 9.90 ns)
// disagree with its paired speedup, 0.99×. It has another row whose lower
// bound, 1.0475, is short of the 1.05× threshold by less than three digits
// show.
func rowsReport() *result.Report {
	c := result.CandidateResult{Name: "feature", Verdict: result.VerdictNotFaster, Speedup: 1.1, CI: &[2]float64{0.99, 1.2}, Pairs: 12,
		Benchmarks: []result.BenchResult{
			{Name: "BenchmarkMedians", Unit: "sec/op", Base: 6.95e-9, Candidate: 9.90e-9, Speedup: 0.99, CI: [2]float64{0.95, 1.03},
				P: 0.6, Level: 0.99, Pairs: 12, Verdict: result.VerdictNotFaster},
			{Name: "BenchmarkEdge", Unit: "sec/op", Base: 1e-6, Candidate: 1e-6 / 1.2, Speedup: 1.2, CI: [2]float64{1.0475, 1.3},
				P: 0.001, Level: 0.99, Pairs: 12, Verdict: result.VerdictNotFaster},
		}}
	return headReport(c)
}

// TestRows_ColumnsAndDigits: the BASE and CANDIDATE columns agree with the
// SPEEDUP beside them. Candidate is base / speedup, and the note under the
// table says so. A lower bound of 1.0475 prints as 1.048× beside
// not-faster, in the text and Markdown tables and the PR comment's.
func TestRows_ColumnsAndDigits(t *testing.T) {
	for _, format := range []string{FormatText, FormatMarkdown, "comment"} {
		t.Run(format, func(t *testing.T) {
			rep := rowsReport()
			var b bytes.Buffer
			var err error
			if format == "comment" {
				err = Comment(&b, rep, JudgeGate(rep, "feature", []string{GateRegression}))
			} else {
				err = Write(&b, rep, format)
			}
			if err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if format == "comment" {
				out = out[strings.Index(out, "<details><summary>Every benchmark row"):]
			}
			row := rowLine(t, out, "BenchmarkMedians", "0.990×")
			if !strings.Contains(row, "6.95ns") || !strings.Contains(row, "7.02ns") || strings.Contains(row, "9.90ns") {
				t.Errorf("the columns of a 0.990× row with base 6.95ns do not show base / speedup (7.02ns): %q", row)
			}
			row = rowLine(t, out, "BenchmarkEdge", "1.20×")
			if !strings.Contains(row, "[1.048×, 1.30×]") || !strings.Contains(row, "not-faster") {
				t.Errorf("a lower bound of 1.0475 beside not-faster does not print as 1.048×: %q", row)
			}
			if !strings.Contains(out, "candidate: base / speedup") {
				t.Errorf("no note says what the candidate's column shows:\n%s", out)
			}
		})
	}
}

// fromDecision is the candidate as the evaluator records a decision of
// stats (evaluator's decide): its verdict, aggregate and claims, and one
// row per benchmark with base's median at 1 µs.
func fromDecision(name string, dec stats.Decision) result.CandidateResult {
	c := result.CandidateResult{Name: name, Verdict: result.Verdict(dec.Verdict), Speedup: dec.Aggregate.Speedup,
		CI: &[2]float64{dec.Aggregate.Low, dec.Aggregate.High}, Pairs: dec.Pairs, Unsettled: !dec.Settled}
	for _, e := range dec.PerBench {
		c.Benchmarks = append(c.Benchmarks, result.BenchResult{Name: e.Name, Unit: "sec/op", Base: 1e-6, Candidate: 1e-6 / e.Speedup,
			Speedup: e.Speedup, CI: [2]float64{e.Low, e.High}, P: e.P, Level: e.Level, Pairs: e.Pairs, Verdict: result.Verdict(e.Verdict)})
	}
	for _, b := range dec.FasterOn {
		c.FasterOn = append(c.FasterOn, dec.PerBench[b].Name)
	}
	for _, b := range dec.SlowerOn {
		c.SlowerOn = append(c.SlowerOn, dec.PerBench[b].Name)
	}
	if dec.Subset {
		c.Qualifier = result.QualifierFasterOnSome
	}
	return c
}

// TestHeadline_TwoOfEight is issue 36's job end to end through stats: 8
// benchmarks, 2 of them 3× faster, measured pair by pair until Look
// settles. Both are claimed faster, and every headline names them:
// "faster on 2 of 8 benchmarks".
func TestHeadline_TwoOfEight(t *testing.T) {
	names := []string{"BenchmarkGet", "BenchmarkPut", "BenchmarkA", "BenchmarkB", "BenchmarkC", "BenchmarkD", "BenchmarkE", "BenchmarkF"}
	zig := []float64{0.3, -0.8, 1, -0.1, 0.6, -0.5, 0.9, -1, 0.2, -0.4}
	seq := stats.Sequential{MinSpeedup: 0.05}
	var rounds [][]stats.Pair
	var dec stats.Decision
	for r := 0; r < 30 && !dec.Settled; r++ {
		var round []stats.Pair
		for b := range names {
			ratio := math.Exp(0.05 * zig[(r+3*b)%len(zig)])
			if b < 2 {
				ratio /= 3
			}
			round = append(round, stats.Pair{Base: 1e-6, Cand: 1e-6 * ratio})
		}
		rounds = append(rounds, round)
		if len(rounds) >= 6 {
			dec = seq.Look(names, rounds)
		}
	}
	if dec.Verdict != stats.Faster || !dec.Settled || !slices.Equal(dec.FasterOn, []int{0, 1}) {
		t.Fatalf("Look = %s settled %v after %d pairs (%s), faster on %v; want faster, settled, on [0 1]", dec.Verdict, dec.Settled, dec.Pairs, dec.Reason, dec.FasterOn)
	}
	c := fromDecision("feature", dec)
	c.Verdict = result.VerdictWinner
	rep := headReport(c)
	rep.Winner = &c.Name
	for _, format := range []string{FormatText, FormatMarkdown, "comment"} {
		var b bytes.Buffer
		var err error
		if format == "comment" {
			err = Comment(&b, rep, JudgeGate(rep, "feature", []string{GateRegression}))
		} else {
			err = Write(&b, rep, format)
		}
		if err != nil {
			t.Fatal(err)
		}
		lead := map[string]string{FormatText: "winner:", FormatMarkdown: "## optimizer:", "comment": "### optimizer:"}[format]
		head := rowLine(t, b.String(), lead, "faster")
		if !strings.Contains(head, "faster on 2 of 8 benchmarks") {
			t.Errorf("%s: the headline does not say faster on 2 of 8 benchmarks: %q", format, head)
		}
		if format != "comment" && (!strings.Contains(head, "BenchmarkGet 2.99×") || !strings.Contains(head, "BenchmarkPut 2.99×")) {
			t.Errorf("%s: the headline does not name BenchmarkGet and BenchmarkPut: %q", format, head)
		}
	}
}

// TestComment_HeadlineDigits: the comment's headline prints an aggregate
// lower bound of 1.0475 as 1.048× beside "no significant speedup".
func TestComment_HeadlineDigits(t *testing.T) {
	rep := rowsReport()
	rep.Candidates[0].CI = &[2]float64{1.0475, 1.3}
	var b bytes.Buffer
	if err := Comment(&b, rep, JudgeGate(rep, "feature", []string{GateRegression})); err != nil {
		t.Fatal(err)
	}
	head := rowLine(t, b.String(), "### optimizer:", "no significant speedup")
	if !strings.Contains(head, "[1.048×, 1.30×]") {
		t.Errorf("the headline does not print the lower bound 1.0475 as 1.048×: %q", head)
	}
}
