package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/profiler"
	"github.com/optimizer-dev/optimizer/result"
	"github.com/rogpeppe/go-internal/diff"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// sampleProfile is a winner's profile, small: the profiler's own tests
// cover its tables.
func sampleProfile() *profiler.Summary {
	return &profiler.Summary{
		Candidate:  "fast",
		Files:      []string{"/art/job/profiles/base.pprof", "/art/job/profiles/fast.pprof"},
		SampleType: "cpu",
		Samples:    profiler.Counts{Base: 1200, Cand: 30},
		Top: []profiler.FuncRow{{Func: "sumsq.SumSquares", File: "sumsq.go", Line: 5, Changed: true,
			Flat: profiler.Share{Base: 97.5, Cand: 40}, Cum: &profiler.Share{Base: 99.2, Cand: 60}}},
	}
}

// sampleReport has one candidate of every verdict, as a demo job gives.
func sampleReport() *result.Report {
	winner := "fast"
	ci := func(lo, hi float64) *[2]float64 { return &[2]float64{lo, hi} }
	return &result.Report{
		Job:        "20250101-120000-0123456789ab",
		Repo:       "/home/ada/sumsq",
		Base:       "0123456789abcdef0123456789abcdef01234567",
		Parallel:   2,
		Winner:     &winner,
		MinSpeedup: 0.05,
		State:      "finished",
		Started:    time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC),
		Seconds:    41.25,
		Phases:     &result.Phases{Resolve: 0.4, Behavior: 16.5, Benchmark: 22.1, Profile: 2.6},
		Noise:      &result.Noise{Floor: 0.021, Pairs: 8},
		Profile:    sampleProfile(),
		Warnings:   []string{"--min-speedup 5% is close to the noise floor ±2.1%"},
		Candidates: []result.CandidateResult{
			{Name: "broken", ID: "t1", Verdict: result.VerdictFailed, Seconds: 1.2, Failure: &result.Failure{
				Kind: result.FailTest, Tests: []string{"TestSumSquares/one", "TestSumSquares/negative"},
				Message: "2 tests fail that pass at base",
				Output:  "--- FAIL: TestSumSquares/one (0.00s)\n    sumsq_test.go:20: SumSquares([3]) = 0, want 9\n",
			}},
			{Name: "fast", ID: "t2", Verdict: result.VerdictWinner, Speedup: 401.5, CI: ci(380.2, 420.9), Pairs: 6, Seconds: 6.4, TestSeconds: 1.1, BenchSeconds: 5.3,
				Benchmarks: []result.BenchResult{
					{Name: "BenchmarkSumSquares", Unit: "sec/op", Base: 3.1e-4, Candidate: 7.72e-7, Speedup: 401.5, CI: [2]float64{380.2, 420.9}, P: 0.0002, Pairs: 6, Verdict: result.VerdictFaster},
					{Name: "BenchmarkSumSquares", Unit: "B/op", Base: 51077, Candidate: 0, Pairs: 6, Exact: true},
					{Name: "BenchmarkSumSquares", Unit: "allocs/op", Base: 2001, Candidate: 0, Pairs: 6, Exact: true},
				}},
			{Name: "fast_again", ID: "t2", Verdict: result.VerdictDuplicate, DuplicateOf: "fast"},
			{Name: "hang", ID: "t3", Verdict: result.VerdictFailed, Seconds: 15, Failure: &result.Failure{
				Kind: result.FailTimeout, Message: "the test command ran past the 15s timeout and was killed",
			}},
			{Name: "nocompile", ID: "t4", Verdict: result.VerdictFailed, Seconds: 0.8, Failure: &result.Failure{
				Kind: result.FailBuild, Message: "example.com/fixture/sumsq does not build",
				Output: "sumsq/sumsq.go:16:3: invalid operation: total += n (mismatched types int and int64)\n",
			}},
			{Name: "slower", ID: "t5", Verdict: result.VerdictSlower, Speedup: 0.52, CI: ci(0.49, 0.55), Pairs: 6, Seconds: 9.1,
				Benchmarks: []result.BenchResult{
					{Name: "BenchmarkSumSquares", Unit: "sec/op", Base: 3.1e-4, Candidate: 5.96e-4, Speedup: 0.52, CI: [2]float64{0.49, 0.55}, P: 0.031, Pairs: 6, Verdict: result.VerdictSlower},
					{Name: "BenchmarkSumSquares", Unit: "allocs/op", Base: 2001, Candidate: 4002, Pairs: 6, Exact: true, Increased: true},
				}},
			{Name: "tweak", ID: "t6", Verdict: result.VerdictNotFaster, Speedup: 1.02, CI: ci(0.97, 1.08), Pairs: 30, Seconds: 20},
			{Name: "mixed|up", ID: "t7", Verdict: result.VerdictMixed, Speedup: 1.4, CI: ci(1.2, 1.6), Pairs: 10, Seconds: 12,
				Benchmarks: []result.BenchResult{
					{Name: "BenchmarkA", Unit: "sec/op", Base: 2e-3, Candidate: 1e-3, Speedup: 2, CI: [2]float64{1.8, 2.2}, P: 0.002, Pairs: 10, Verdict: result.VerdictFaster},
					{Name: "BenchmarkB", Unit: "sec/op", Base: 1e-3, Candidate: 1.25e-3, Speedup: 0.8, CI: [2]float64{0.75, 0.85}, P: 0.004, Pairs: 10, Verdict: result.VerdictSlower},
				}},
			{Name: "noop", ID: "t0", Verdict: result.VerdictDuplicate, DuplicateOf: "base"},
			{Name: "docs", ID: "t8", Verdict: result.VerdictPassed, TestsPassed: 12, TestsTotal: 12, Seconds: 2.5,
				Note: "no benchmark covers the packages it changes"},
			{Name: "second", ID: "t9", Verdict: result.VerdictFaster, Speedup: 3.1, CI: ci(2.9, 3.3), Pairs: 8, Seconds: 7},
		},
	}
}

func TestWriteReport_Golden(t *testing.T) {
	for _, tt := range []struct {
		name   string
		format string
		rep    func() *result.Report
	}{
		{"all-verdicts.txt", FormatText, sampleReport},
		{"all-verdicts.md", FormatMarkdown, sampleReport},
		{"all-verdicts.json", FormatJSON, sampleReport},
		{"no-winner.txt", FormatText, noWinnerReport},
		{"no-winner.md", FormatMarkdown, noWinnerReport},
		{"across-benchmarks.txt", FormatText, acrossReport},
		{"across-benchmarks.md", FormatMarkdown, acrossReport},
		{"across-benchmarks.json", FormatJSON, acrossReport},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, tt.rep(), tt.format); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", tt.name+".golden"), buf.String())
		})
	}
}

// noWinnerReport is an interrupted job: nothing is faster, one candidate
// never finished.
func noWinnerReport() *result.Report {
	rep := sampleReport()
	rep.Winner = nil
	rep.State = "interrupted"
	rep.Profile = nil
	rep.Noise = nil
	rep.Warnings = nil
	rep.Candidates = []result.CandidateResult{
		rep.Candidates[6], // tweak: not-faster
		{Name: "late", Verdict: result.VerdictPending},
	}
	return rep
}

// acrossReport is issue 13's verdicts across benchmarks. A winner is faster
// on 2 of 4 benchmarks only. Another candidate's benchmarks disagree in
// direction while its aggregate is flat. A third's lower bound (1.0477) sits
// just under the threshold.
func acrossReport() *result.Report {
	rep := sampleReport()
	winner := "hash"
	rep.Winner = &winner
	rep.Profile, rep.Noise, rep.Warnings = nil, nil, nil
	ci := func(lo, hi float64) *[2]float64 { return &[2]float64{lo, hi} }
	row := func(name string, speedup, lo, hi, p float64, v result.Verdict) result.BenchResult {
		return result.BenchResult{Name: name, Unit: "sec/op", Base: 1e-6, Candidate: 1e-6 / speedup, Speedup: speedup,
			CI: [2]float64{lo, hi}, P: p, Level: 0.99805, Pairs: 30, Verdict: v}
	}
	rep.Candidates = []result.CandidateResult{
		{Name: "hash", ID: "h1", Verdict: result.VerdictWinner, Qualifier: result.QualifierFasterOnSome,
			Speedup: 1.17, CI: ci(1.0477, 1.31), Pairs: 30, Seconds: 300,
			FasterOn: []string{"BenchmarkSum/4", "BenchmarkSum/100"},
			Benchmarks: []result.BenchResult{
				row("BenchmarkSum/4", 2.5, 2.2, 2.8, 0.0001, result.VerdictFaster),
				row("BenchmarkSum/100", 1.6, 1.4, 1.8, 0.0001, result.VerdictFaster),
				row("BenchmarkSum/4K", 1.01, 0.97, 1.04, 0.4, result.VerdictNotFaster),
				row("BenchmarkSum/1M", 0.99, 0.96, 1.03, 0.002, result.VerdictNotFaster),
			}},
		{Name: "sizes", ID: "h2", Verdict: result.VerdictMixed, Speedup: 0.98, CI: ci(0.94, 1.02), Pairs: 14, Seconds: 60,
			FasterOn: []string{"BenchmarkSum/4"}, SlowerOn: []string{"BenchmarkSum/1M"},
			Benchmarks: []result.BenchResult{
				row("BenchmarkSum/4", 1.89, 1.8, 1.98, 0.0001, result.VerdictFaster),
				row("BenchmarkSum/100", 1.01, 0.97, 1.04, 0.4, result.VerdictNotFaster),
				row("BenchmarkSum/4K", 1.0, 0.97, 1.04, 0.9, result.VerdictNotFaster),
				row("BenchmarkSum/1M", 0.49, 0.46, 0.52, 0.0001, result.VerdictSlower),
			}},
		{Name: "near", ID: "h3", Verdict: result.VerdictNotFaster, Speedup: 1.17, CI: ci(1.0477, 1.31), Pairs: 30, Seconds: 300},
	}
	return rep
}

// TestWriteJSON_Contract checks the JSON against DESIGN.md's field names:
// they may be added to, never renamed.
func TestWriteJSON_Contract(t *testing.T) {
	var buf bytes.Buffer
	if err := JSON(&buf, sampleReport()); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, buf.String())
	}
	for _, k := range []string{"job", "repo", "base", "parallel", "winner", "candidates", "profile"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("report lacks %q", k)
		}
	}
	cands := doc["candidates"].([]any)
	fast := cands[1].(map[string]any)
	for _, k := range []string{"name", "id", "verdict", "speedup", "ci", "benchmarks", "failure"} {
		if _, ok := fast[k]; !ok {
			t.Errorf("candidate lacks %q", k)
		}
	}
	if fast["failure"] != nil {
		t.Errorf("failure = %v, want null", fast["failure"])
	}
	b := fast["benchmarks"].([]any)[0].(map[string]any)
	for _, k := range []string{"name", "unit", "base", "candidate", "speedup", "ci", "p", "pairs"} {
		if _, ok := b[k]; !ok {
			t.Errorf("benchmark lacks %q", k)
		}
	}
	broken := cands[0].(map[string]any)["failure"].(map[string]any)
	for _, k := range []string{"kind", "tests", "message", "output"} {
		if _, ok := broken[k]; !ok {
			t.Errorf("failure lacks %q", k)
		}
	}

	buf.Reset()
	if err := JSON(&buf, noWinnerReport()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"winner": null`) {
		t.Errorf("winner is not null without a winner:\n%s", buf.String())
	}
}

func TestValueText(t *testing.T) {
	for _, tt := range []struct {
		unit string
		v    float64
		want string
	}{
		{"sec/op", 3.1e-4, "310µs"},
		{"sec/op", 7.72e-7, "772ns"},
		{"sec/op", 1.5, "1.50s"},
		{"sec/op", 0.0123, "12.3ms"},
		{"sec/op", 0, "0s"},
		{"ns/op", 772, "772ns"},
		{"B/op", 51077, "49.9KiB"},
		{"B/op", 512, "512B"},
		{"allocs/op", 2001, "2001"},
		{"widgets", 0.12345, "0.123"},
	} {
		t.Run(tt.unit+"/"+tt.want, func(t *testing.T) {
			if got := valueText(tt.unit, tt.v); got != tt.want {
				t.Errorf("valueText(%q, %v) = %q, want %q", tt.unit, tt.v, got, tt.want)
			}
		})
	}
}

// golden compares got with the file, or rewrites the file with -update.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update rewrites it):\n%s", path, diff.Diff("want", want, "got", []byte(got)))
	}
}

func TestBoundText(t *testing.T) {
	marks := []float64{1, 1.05}
	for _, tt := range []struct {
		x    float64
		want string
	}{
		{1.0477, "1.048×"}, // would read 1.05× beside "does not clear 1.05×"
		{1.05, "1.05×"},    // at the threshold: clears it
		{1.0502, "1.0502×"},
		{0.9996, "0.9996×"}, // would read 1.00×
		{1.31, "1.31×"},
		{2.5, "2.50×"},
	} {
		if got := boundText(tt.x, marks); got != tt.want {
			t.Errorf("boundText(%v) = %q, want %q", tt.x, got, tt.want)
		}
	}
}

// TestWrite_DecodedReport: a report read back from its JSON, as a client
// of the daemon reads it, renders as the report itself does, its profile
// section included.
func TestWrite_DecodedReport(t *testing.T) {
	rep := sampleReport()
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var decoded result.Report
	if err := json.Unmarshal(b, &decoded); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "markdown"} {
		var want, got bytes.Buffer
		if err := Write(&want, rep, format); err != nil {
			t.Fatal(err)
		}
		if err := Write(&got, &decoded, format); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(got.String(), "why fast is faster") {
			t.Errorf("%s: the decoded report has no profile section:\n%s", format, got.String())
		}
		if got.String() != want.String() {
			t.Errorf("%s: the decoded report renders otherwise:\n%s", format, diff.Diff("report", want.Bytes(), "decoded", got.Bytes()))
		}
	}
}
