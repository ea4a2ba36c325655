package report

import (
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/result"
)

// TestProgressLine_Wait: a benchmark's wait for the machine shows beside its
// time, in the progress line and in the report's time column.
func TestProgressLine_Wait(t *testing.T) {
	r := &result.CandidateResult{Verdict: result.VerdictNotFaster, Seconds: 9, WaitSeconds: 65}
	if got, want := ProgressLine(r, 0.05), "not-faster 9.0s (after waiting 1m05s for the machine)"; got != want {
		t.Errorf("ProgressLine = %q, want %q", got, want)
	}
	if got, want := timeText(*r), "9.0s (+1m05s wait)"; got != want {
		t.Errorf("timeText = %q, want %q", got, want)
	}
}

// TestLines_BoundsBesideThreshold: a progress line and a watch line print a
// bound that rounds to the threshold, or to 1×, by the report's rule. They
// print it with the digits that show which side of it the bound falls.
func TestLines_BoundsBesideThreshold(t *testing.T) {
	for _, tt := range []struct {
		ci         [2]float64
		minSpeedup float64
		want       string
	}{
		{[2]float64{1.0475, 1.2}, 0.05, "[1.048×, 1.20×]"},
		{[2]float64{1.0475, 1.2}, 0.10, "[1.05×, 1.20×]"},
		{[2]float64{0.9996, 1.0012}, 0.05, "[0.9996×, 1.001×]"},
		{[2]float64{1.1003, 1.3}, 0.10, "[1.1003×, 1.30×]"},
	} {
		r := &result.CandidateResult{Verdict: result.VerdictNotFaster, Speedup: 1.1, CI: &tt.ci}
		if got, want := ProgressLine(r, tt.minSpeedup), "not-faster 1.10× "+tt.want; got != want {
			t.Errorf("ProgressLine(%v, %v) = %q, want %q", tt.ci, tt.minSpeedup, got, want)
		}
		if got, want := WatchLine(r, tt.minSpeedup), "tests pass · 1.10× "+tt.want+" not faster"; got != want {
			t.Errorf("WatchLine(%v, %v) = %q, want %q", tt.ci, tt.minSpeedup, got, want)
		}
		if got := ciFor(&result.Report{MinSpeedup: tt.minSpeedup}, *r); got != tt.want {
			t.Errorf("the report prints %v beside %v as %s, the lines as %s", tt.ci, tt.minSpeedup, got, tt.want)
		}
	}
}

func TestShortDuration(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{850 * time.Millisecond, "850ms"},
		{1200 * time.Millisecond, "1.2s"},
		{48 * time.Second, "48s"},
		{185 * time.Second, "3m05s"},
	} {
		if got := ShortDuration(tt.d); got != tt.want {
			t.Errorf("ShortDuration(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestPlural(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want string
	}{
		{0, "0 slots"},
		{1, "1 slot"},
		{2, "2 slots"},
	} {
		if got := Plural(tt.n, "slot"); got != tt.want {
			t.Errorf("Plural(%d, slot) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestWatchLine(t *testing.T) {
	ci := func(lo, hi float64) *[2]float64 { return &[2]float64{lo, hi} }
	for _, tt := range []struct {
		name string
		c    result.CandidateResult
		want string
	}{
		{"Faster", result.CandidateResult{Verdict: result.VerdictWinner, TestsPassed: 48, TestsTotal: 48,
			Speedup: 3.1, CI: ci(2.9, 3.3), Benchmarks: []result.BenchResult{
				{Name: "BenchmarkSumSquares", Unit: "sec/op"},
				{Name: "BenchmarkSumSquares", Unit: "allocs/op", Exact: true, Increased: true}}},
			"tests 48/48 pass · BenchmarkSumSquares 3.10× faster [2.90×, 3.30×] · allocs/op increased"},
		// Means beside time: only a significant change is named.
		{"Beside", result.CandidateResult{Verdict: result.VerdictNotFaster, Speedup: 1.01, CI: ci(0.98, 1.04), Benchmarks: []result.BenchResult{
			{Name: "BenchmarkSumSquares", Unit: "sec/op"},
			{Name: "BenchmarkSumSquares", Unit: "allocs/op", Beside: true, Decreased: true},
			{Name: "BenchmarkSumSquares", Unit: "B/op", Beside: true}}},
			"tests pass · BenchmarkSumSquares 1.01× [0.980×, 1.04×] not faster · allocs/op decreased"},
		{"NotFaster", result.CandidateResult{Verdict: result.VerdictNotFaster, Speedup: 1.01, CI: ci(0.98, 1.04),
			Benchmarks: []result.BenchResult{{Name: "BenchmarkA"}, {Name: "BenchmarkB"}}, Seconds: 12},
			"tests pass · 2 benchmarks 1.01× [0.980×, 1.04×] not faster · 12s"},
		{"Slower", result.CandidateResult{Verdict: result.VerdictSlower, Speedup: 0.5, CI: ci(0.45, 0.55)},
			"tests pass · 0.500× slower [0.450×, 0.550×]"},
		{"Passed", result.CandidateResult{Verdict: result.VerdictPassed, TestsPassed: 3, TestsTotal: 4, Note: "no benchmark reaches the change"},
			"tests 3/4 pass · no benchmark reaches the change"},
		{"FailTest", result.CandidateResult{Verdict: result.VerdictFailed, Failure: &result.Failure{
			Kind: result.FailTest, Tests: []string{"TestX"}, Output: "--- TestX\n    sumsq_test.go:21: got 1, want 2\n"}},
			"FAIL TestX (sumsq_test.go:21)"},
		{"FailBuild", result.CandidateResult{Verdict: result.VerdictFailed, Failure: &result.Failure{
			Kind: result.FailBuild, Message: "does not compile: example.com/m/x", Output: "# example.com/m/x\nx/x.go:3:9: undefined: y\n"}},
			"FAIL build: does not compile: example.com/m/x (x/x.go:3)"},
		{"FailTimeout", result.CandidateResult{Verdict: result.VerdictFailed, Failure: &result.Failure{
			Kind: result.FailTimeout, Message: "the test command ran past --timeout 1s"}},
			"FAIL timeout: the test command ran past --timeout 1s"},
		{"FailShell", result.CandidateResult{Verdict: result.VerdictFailed, Failure: &result.Failure{
			Kind: result.FailTest, Message: "the test command exits 1 where base exits 0", Output: "at 12:03:41\ncheck.py:7: assertion\n"}},
			"FAIL the test command exits 1 where base exits 0 (check.py:7)"},
		{"Duplicate", result.CandidateResult{Verdict: result.VerdictDuplicate, DuplicateOf: "base"},
			"same tree as HEAD: nothing to evaluate"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := WatchLine(&tt.c, 0.05); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}
