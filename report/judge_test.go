package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/result"
)

// TestWriteReport_TestEdits: a candidate that edits the judge says so in
// the text and markdown reports, and in JSON under test_edits.
func TestWriteReport_TestEdits(t *testing.T) {
	rep := sampleReport()
	rep.Candidates[1].TestEdits = &result.TestEdits{Files: []string{"sum/sum_test.go"},
		Changed: []string{"sum/sum_test.go:TestSum"}, Judged: "base"}
	rep.Candidates[2].TestEdits = &result.TestEdits{Files: []string{"sum/new_test.go"},
		Added: []string{"sum/new_test.go:TestNew"}, Judged: "base"} // adds only: not flagged
	for _, tt := range []struct{ format, want string }{
		{FormatText, "    edits the judge: its tests: changes sum/sum_test.go:TestSum; judged with base's sum/sum_test.go\n"},
		{FormatMarkdown, "  - edits the judge: its tests: changes sum/sum\\_test.go:TestSum; judged with base's sum/sum\\_test.go\n"},
		{FormatJSON, `"test_edits":{"files":["sum/sum_test.go"],"changed":["sum/sum_test.go:TestSum"],"judged":"base"}`},
	} {
		var buf bytes.Buffer
		if err := Write(&buf, rep, tt.format); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if tt.format == FormatJSON {
			out = strings.Join(strings.Fields(out), "")
		}
		if !strings.Contains(out, tt.want) {
			t.Errorf("%s report lacks %q:\n%s", tt.format, tt.want, out)
		}
		if n := strings.Count(out, "edits the judge"); tt.format != FormatJSON && n != 1 {
			t.Errorf("%s report flags %d candidates, want 1", tt.format, n)
		}
	}
}

// TestWriteReport_Interference: a candidate measured on a busy machine says
// so, and how much, in every format.
func TestWriteReport_Interference(t *testing.T) {
	rep := sampleReport()
	rep.Candidates[1].Interference = &result.Interference{Samples: 12, Disturbed: 9, OtherCPU: 0.48,
		MaxOtherCPU: 0.52, InvolSwitches: 31}
	rep.Candidates[2].Interference = &result.Interference{Samples: 12, OtherCPU: 0.01, MaxOtherCPU: 0.03}             // quiet
	rep.Candidates[3].Interference = &result.Interference{Samples: 4, Disturbed: 1, OtherCPU: 0.02, MaxOtherCPU: 0.2} // one burst
	for _, tt := range []struct{ format, want string }{
		{FormatText, "    measured on a busy machine: 9 of 12 samples disturbed: other work took a median 48% of the benchmark CPU (at most 52%)"},
		{FormatMarkdown, "  - measured on a busy machine: 9 of 12 samples disturbed: other work took a median 48% of the benchmark CPU"},
		{FormatJSON, `"interference":{"samples":12,"disturbed":9,"other_cpu":0.48,"max_other_cpu":0.52,"max_steal":0,"invol_switches":31}`},
	} {
		var buf bytes.Buffer
		if err := Write(&buf, rep, tt.format); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if tt.format == FormatJSON {
			out = strings.Join(strings.Fields(out), "")
			tt.want = strings.Join(strings.Fields(tt.want), "")
		}
		if !strings.Contains(out, tt.want) {
			t.Errorf("%s report lacks %q:\n%s", tt.format, tt.want, out)
		}
		if n := strings.Count(out, "busy machine"); tt.format != FormatJSON && n != 1 {
			t.Errorf("%s report calls %d candidates disturbed, want 1", tt.format, n)
		}
	}
}

// TestReason_TooFewPairs: a not-faster candidate stopped at a look whose
// interval seems to clear the threshold is not said to "not clear" it. A
// deadline cut it off before any claim was attainable.
func TestReason_TooFewPairs(t *testing.T) {
	rep := &result.Report{MinSpeedup: 0.05}
	for _, tt := range []struct {
		name string
		ci   [2]float64
		want string
	}{
		{"ShortOfConfidence", [2]float64{255.82, 1530}, "too few pairs for a claim: its interval [256×, 1530×] is short of the confidence a claim needs; not settled after 6 pairs"},
		{"Straddles", [2]float64{0.97, 1.3}, "does not clear 1.05×"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := result.CandidateResult{Name: "fast", Verdict: result.VerdictNotFaster, Speedup: 2, CI: &tt.ci,
				Pairs: 6, Unsettled: true, Note: "not settled after 6 pairs"}
			if got := Reason(rep, c); !strings.Contains(got, tt.want) {
				t.Errorf("Reason = %q, want it to contain %q", got, tt.want)
			}
		})
	}
}
