package evaluator

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/internal/testenv"
)

// opsRepo is a Go module whose benchmarks have sub-benchmarks, a tiny and a
// huge one among them. One benchmark skips without -datadir, as benchmarks
// that need data files do.
var opsRepo = map[string]string{
	"go.mod":     "module example.com/ops\n\ngo 1.22\n",
	"ops/ops.go": "package ops\n\n// Work sums n values.\nfunc Work(n int) int {\n\ts := 0\n\tfor i := 0; i < n; i++ {\n\t\ts += i ^ n\n\t}\n\treturn s\n}\n",
	"ops/ops_test.go": `package ops

import (
	"flag"
	"fmt"
	"testing"
)

var (
	sink    int
	dataDir = flag.String("datadir", "", "where the data files are")
)

func BenchmarkOps(b *testing.B) {
	for _, name := range []string{"Prev", "Next", "Seek"} {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sink = Work(8)
			}
		})
	}
}

func BenchmarkSpan(b *testing.B) {
	for _, n := range []int{1, 100000} {
		b.Run(fmt.Sprintf("size-%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sink = Work(n)
			}
		})
	}
}

func BenchmarkDecode(b *testing.B) {
	if *dataDir == "" {
		b.Skip("no data files: run with -datadir DIR")
	}
	for i := 0; i < b.N; i++ {
		sink = Work(4)
	}
}
`,
}

// opsCand changes ops.go's comment only: its benchmarks are base's.
func opsCand(name string) candidate.Candidate {
	return filesCand(name, map[string]string{"ops/ops.go": strings.Replace(opsRepo["ops/ops.go"], "sums n", "sums n ("+name+")", 1)})
}

// opsOptions measures two pairs, with 20 ms samples for the rest of t:
// these tests are about which benchmarks are measured and how, not about
// verdicts.
func opsOptions(t testing.TB, filter string, args []string, cands ...candidate.Candidate) Options {
	shortSamples(t, 20*time.Millisecond)
	return Options{Candidates: cands, Test: "true", BenchFilter: filter, BenchArgs: args,
		MinPairs: 2, MaxPairs: 2, Pin: true, Timeout: 2 * time.Minute}
}

// shortSamples calibrates Go benchmark samples to d until t ends. Tests that
// call it must not run in parallel.
func shortSamples(t testing.TB, d time.Duration) {
	old := calibrateTarget
	calibrateTarget = d
	t.Cleanup(func() { calibrateTarget = old })
}

func timedNames(c CandidateResult) []string {
	var names []string
	for _, b := range c.Benchmarks {
		if !b.Aside() {
			names = append(names, b.Name)
		}
	}
	slices.Sort(names)
	return names
}

// TestRun_GoBenchJobLevel checks issue 13 items 4–7 on real Go benchmarks.
// Each sub-benchmark is calibrated and measured on its own. A benchmark that
// skips at base is one warning for the job, with its own message and the
// --bench-arg advice, not a failure of every candidate. The --bench-arg
// arguments reach calibration. A benchmark that exists only at base is left
// out for that candidate. A --bench-filter matches full sub-benchmark names,
// or stops the job listing what exists.
func TestRun_GoBenchJobLevel(t *testing.T) {
	testenv.Once(t)
	if testing.Short() {
		t.Skip("builds and benchmarks a Go module")
	}
	h := newHarness(t, opsRepo)
	ctx := context.Background()

	t.Run("SkipAtBase", func(t *testing.T) {
		// drop has no huge BenchmarkSpan sub-benchmark: it exists only at
		// base. It adds BenchmarkNew, which exists only in drop.
		drop := filesCand("drop", map[string]string{"ops/ops_test.go": strings.Replace(opsRepo["ops/ops_test.go"], "1, 100000", "1", 1) +
			"\nfunc BenchmarkNew(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\tsink = Work(2)\n\t}\n}\n"})
		opts := opsOptions(t, "", nil, opsCand("a"), drop)
		// drop edits its benchmarks: measured with its own test file, not
		// base's (judge.go), so that its benchmarks differ from base's.
		opts.TrustCandidateTests = true
		rep, err := h.run(t, ctx, 2, opts)
		if err != nil {
			t.Fatal(err)
		}
		var skips []string
		for _, w := range rep.Warnings {
			if strings.Contains(w, "BenchmarkDecode") {
				skips = append(skips, w)
			}
		}
		if len(skips) != 1 || !strings.Contains(skips[0], "no data files: run with -datadir DIR") || !strings.Contains(skips[0], "--bench-arg") {
			t.Errorf("warnings about BenchmarkDecode: %q; want one, with its skip message and --bench-arg", skips)
		}
		want := []string{"BenchmarkOps/Next", "BenchmarkOps/Prev", "BenchmarkOps/Seek", "BenchmarkSpan/size-1", "BenchmarkSpan/size-100000"}
		a := rep.Candidates[0]
		if a.Verdict == VerdictFailed || !slices.Equal(timedNames(a), want) {
			t.Errorf("a: %s (%v), benchmarks %q; want measured, with %q", a.Verdict, a.Failure, timedNames(a), want)
		}
		d := rep.Candidates[1]
		if d.Verdict == VerdictFailed || slices.Contains(timedNames(d), "BenchmarkSpan/size-100000") || !slices.Contains(timedNames(d), "BenchmarkSpan/size-1") {
			t.Errorf("drop: %s (%v), benchmarks %q; want measured without BenchmarkSpan/size-100000", d.Verdict, d.Failure, timedNames(d))
		}
		if !strings.Contains(strings.Join(rep.Warnings, "\n"), "BenchmarkSpan/size-100000 prints no result in candidate drop") {
			t.Errorf("no warning that BenchmarkSpan/size-100000 exists only at base: %q", rep.Warnings)
		}
		if !strings.Contains(strings.Join(rep.Warnings, "\n"), "BenchmarkNew (example.com/ops/ops) exists only in candidate drop") {
			t.Errorf("no warning that BenchmarkNew exists only in drop: %q", rep.Warnings)
		}
		// Each sub-benchmark ran with its own count: the tiny one far more
		// iterations than the huge one.
		samples, err := h.db.BenchSamples(ctx, rep.Job, "a")
		if err != nil {
			t.Fatal(err)
		}
		iters := map[string]int64{}
		for _, s := range samples {
			iters[s.Benchmark] = s.Iterations
		}
		if tiny, huge := iters["BenchmarkSpan/size-1"], iters["BenchmarkSpan/size-100000"]; tiny <= huge || huge < 1 {
			t.Errorf("iterations: tiny %d, huge %d; want each its own count", tiny, huge)
		}
	})

	t.Run("BenchArg", func(t *testing.T) {
		rep, err := h.run(t, ctx, 2, opsOptions(t, "Decode", []string{"-datadir=" + t.TempDir()}, opsCand("a")))
		if err != nil {
			t.Fatal(err)
		}
		var warnings []string // but a busy machine's, which a loaded machine may earn
		for _, w := range rep.Warnings {
			if !strings.HasPrefix(w, busyWarning) {
				warnings = append(warnings, w)
			}
		}
		if got := timedNames(rep.Candidates[0]); !slices.Equal(got, []string{"BenchmarkDecode"}) || len(warnings) != 0 {
			t.Errorf("benchmarks %q, warnings %q; want BenchmarkDecode measured, no warning", got, warnings)
		}
	})

	t.Run("FilterSub", func(t *testing.T) {
		rep, err := h.run(t, ctx, 2, opsOptions(t, "BenchmarkOps/(Prev|Next)", nil, opsCand("a")))
		if err != nil {
			t.Fatal(err)
		}
		if got := timedNames(rep.Candidates[0]); !slices.Equal(got, []string{"BenchmarkOps/Next", "BenchmarkOps/Prev"}) {
			t.Errorf("benchmarks %q, want BenchmarkOps/Next and BenchmarkOps/Prev", got)
		}
	})

	// A filter whose top level matches nothing stops the job before it
	// starts (no report); one whose sub-benchmark part matches nothing, at
	// base's calibration, which runs them.
	for _, tt := range []struct {
		filter, lists string
		early         bool
	}{
		{"BenchmarkNope", "BenchmarkDecode, BenchmarkOps, BenchmarkSpan", true},
		{"BenchmarkOps/Nope", "BenchmarkOps/Prev, BenchmarkOps/Next, BenchmarkOps/Seek", false},
	} {
		t.Run("FilterNothing/"+tt.filter, func(t *testing.T) {
			rep, err := h.run(t, ctx, 2, opsOptions(t, tt.filter, nil, opsCand("a"), opsCand("b")))
			if !errors.Is(err, ErrBenchFilter) || !strings.Contains(err.Error(), tt.lists) {
				t.Fatalf("err = %v; want ErrBenchFilter listing %s", err, tt.lists)
			}
			if tt.early {
				if rep != nil {
					t.Errorf("a report with %d candidates; want the job stopped before it started", len(rep.Candidates))
				}
				return
			}
			for _, c := range rep.Candidates {
				if c.Verdict == VerdictFailed || !strings.Contains(c.Note, "not measured") {
					t.Errorf("%s: %s, note %q; want not failed, not measured", c.Name, c.Verdict, c.Note)
				}
			}
		})
	}
}

// TestRun_BenchCommandFilterNothing: with a --bench command, a filter that
// matches none of the benchmarks it prints stops the job at the first base
// sample. It lists what the command prints, and fails no candidate.
func TestRun_BenchCommandFilterNothing(t *testing.T) {
	h := newHarness(t, map[string]string{
		"test.sh":  "true\n",
		"bench.sh": "echo 'BenchmarkOps/Prev-2   1000   5000 ns/op'\necho 'BenchmarkOps/Next-2   1000   6000 ns/op'\n",
	})
	rep, err := h.run(t, context.Background(), 2, Options{
		Candidates: []candidate.Candidate{filesCand("a", map[string]string{"x": "1"}), filesCand("b", map[string]string{"x": "2"})},
		Test:       "sh test.sh", Bench: "sh bench.sh", BenchFilter: "BenchmarkOps/Seek", MaxPairs: 6,
	})
	if !errors.Is(err, ErrBenchFilter) || !strings.Contains(err.Error(), "BenchmarkOps/Prev, BenchmarkOps/Next") {
		t.Fatalf("err = %v; want ErrBenchFilter listing BenchmarkOps/Prev, BenchmarkOps/Next", err)
	}
	for _, c := range rep.Candidates {
		if c.Verdict == VerdictFailed || !strings.Contains(c.Note, "not measured") {
			t.Errorf("%s: %s (%v), note %q; want not failed, not measured", c.Name, c.Verdict, c.Failure, c.Note)
		}
	}
}
