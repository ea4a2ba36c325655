package evaluator

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/evaluator/measure"
	"github.com/optimizer-dev/optimizer/internal/testenv"
)

// allocRepo is a Go module whose benchmarks allocate. BenchmarkWork makes
// four small allocations an op beside about 20 µs of arithmetic, so that
// halving them changes its time by far less than the threshold.
// BenchmarkAmortised's averages depend on b.N: a slice grown across the
// iterations and an allocation every fourth call.
var allocRepo = map[string]string{
	"go.mod": "module example.com/alloc\n\ngo 1.22\n",
	"alloc/alloc.go": `package alloc

// Keep holds what Work allocates, so that it escapes.
var Keep [][]byte

// Work mixes n values and allocates four small buffers.
func Work(n int) int {
	for range 4 {
		Keep = append(Keep[:0], make([]byte, 16))
	}
	s := 0
	for i := 0; i < n; i++ {
		s += (i * 2654435761) ^ (s >> 3)
	}
	return s
}
`,
	"alloc/alloc_test.go": `package alloc

import "testing"

var (
	sink    int
	bufSink []byte
)

func BenchmarkWork(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink = Work(20000)
	}
}

func BenchmarkAmortised(b *testing.B) {
	var s []int
	for i := 0; i < b.N; i++ {
		s = append(s, i)
		if i%4 == 0 {
			bufSink = make([]byte, 100)
		}
	}
	sink = len(s)
}
`,
}

// allocCands: "comment" changes a comment only; "halved" makes two of
// Work's four allocations.
func allocCands() []candidate.Candidate {
	src := allocRepo["alloc/alloc.go"]
	return []candidate.Candidate{
		filesCand("comment", map[string]string{"alloc/alloc.go": strings.Replace(src, "mixes n values", "mixes n values together", 1)}),
		filesCand("halved", map[string]string{"alloc/alloc.go": strings.Replace(src, "range 4", "range 2", 1)}),
	}
}

// rowOf finds c's row of bench in unit.
func rowOf(c CandidateResult, bench, unit string) (BenchResult, bool) {
	for _, b := range c.Benchmarks {
		if b.Name == bench && b.Unit == unit {
			return b, true
		}
	}
	return BenchResult{}, false
}

// TestRun_Allocs checks issue 36 item 3 and issue 38 item 4 on real Go
// benchmarks. A comment-only candidate reports no change in any allocation
// row, though BenchmarkAmortised's B/op depends on b.N. A candidate that
// halves Work's allocations is reported "decreased" with an interval of 2×,
// while its time is not faster. With --metric allocs it is faster, judged
// on allocs/op, with time beside.
func TestRun_Allocs(t *testing.T) {
	testenv.Long(t)
	h := newHarness(t, allocRepo)
	for _, metric := range []Metric{MetricWall, MetricAllocs} {
		t.Run(string(metric), func(t *testing.T) {
			rep, err := h.run(t, context.Background(), 2, allocOptions(t, metric, "", allocCands()...))
			if err != nil {
				t.Fatal(err)
			}
			noAllocChange(t, rep)
			halved := rep.Candidates[1]
			b, ok := rowOf(halved, "BenchmarkWork", "allocs/op")
			switch {
			case !ok:
				t.Errorf("halved: no allocs/op row for BenchmarkWork: %+v", halved.Benchmarks)
			case metric == MetricAllocs && (b.Beside || halved.Verdict != VerdictWinner && halved.Verdict != VerdictFaster):
				t.Errorf("halved, --metric allocs: %s, allocs/op row %+v; want faster, judged on allocs/op", halved.Verdict, b)
			case metric == MetricWall && (!b.Beside || !b.Decreased || b.CI[0] < 1.9 || b.CI[1] > 2.1):
				t.Errorf("halved: allocs/op row %+v; want beside time, decreased, interval near 2×", b)
			case metric == MetricWall && (halved.Verdict == VerdictWinner || halved.Verdict == VerdictFaster):
				t.Errorf("halved: %s %.2f× %v; want its time not faster", halved.Verdict, halved.Speedup, halved.CI)
			}
			if tm, ok := rowOf(halved, "BenchmarkWork", "sec/op"); metric == MetricAllocs && (!ok || !tm.Beside) {
				t.Errorf("halved, --metric allocs: time row %+v; want it beside allocs/op", tm)
			}
		})
	}
}

// TestRun_AllocsBenchCommand: go test -bench calibrates b.N itself,
// differently in each sample. So BenchmarkAmortised's B/op differs between
// samples of identical code. A comment-only candidate still reports no
// change in any allocation row.
func TestRun_AllocsBenchCommand(t *testing.T) {
	testenv.Long(t)
	h := newHarness(t, allocRepo)
	rep, err := h.run(t, context.Background(), 2, allocOptions(t, MetricWall,
		"go test -run '^$' -bench . -benchmem -benchtime 20ms ./alloc/", allocCands()[0]))
	if err != nil {
		t.Fatal(err)
	}
	noAllocChange(t, rep)
}

// allocOptions measures 8 pairs of 20 ms samples: the first look at which
// a halved count can be claimed is 7.
func allocOptions(t *testing.T, metric Metric, bench string, cands ...candidate.Candidate) Options {
	shortSamples(t, 20*time.Millisecond)
	return Options{Candidates: cands, Test: "true", Bench: bench, Metric: metric,
		MinPairs: 8, MaxPairs: 8, Pin: true, Timeout: 2 * time.Minute, NoCache: true}
}

// noAllocChange checks that no candidate failed, and that no allocation
// row of identical code (the comment candidate's, BenchmarkAmortised's)
// changed. A time row beside allocs/op is left out: like a judged time row,
// it may call identical code slower at the family's error rate.
func noAllocChange(t *testing.T, rep *Report) {
	t.Helper()
	for _, c := range rep.Candidates {
		if c.Verdict == VerdictFailed {
			t.Fatalf("%s failed: %v", c.Name, c.Failure)
		}
		for _, b := range c.Benchmarks {
			if b.Beside && measure.AveragedUnit(b.Unit) && (c.Name == "comment" || b.Name == "BenchmarkAmortised") && (b.Increased || b.Decreased) {
				t.Errorf("%s: %s %s %v → %v %v: a change, though its code is base's", c.Name, b.Name, b.Unit, b.Base, b.Candidate, b.CI)
			}
		}
	}
}

// TestRun_MetricRSS checks issue 38 item 4's --metric rss on a bench
// command whose awk builds a string as long as a file says. The candidate
// that halves it is faster, judged on the peak (unit B, about 2×), with the
// wall time beside. One that changes another file is not. Go benchmarks,
// which have no command, stop the job with ErrMetric. Not under -race: the
// peak wrapper, this test binary, would then start every run at about 28 MB.
func TestRun_MetricRSS(t *testing.T) {
	testenv.Once(t)
	h := newHarness(t, map[string]string{
		"size":     "16000000\n",
		"notes":    "a file the benchmark does not read\n",
		"bench.sh": "awk -v n=$(cat size) 'BEGIN { s = \"a\"; while (length(s) < n) s = s s; exit length(s) == 0 }'\n",
	})
	ctx := context.Background()
	rep, err := h.run(t, ctx, 2, Options{Test: "true", Bench: "sh bench.sh", Metric: MetricRSS,
		Candidates: []candidate.Candidate{
			filesCand("same", map[string]string{"notes": "another note\n"}),
			filesCand("half", map[string]string{"size": "8000000\n"}),
		},
		MinPairs: 8, MaxPairs: 8, Pin: true, Timeout: time.Minute, NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	same, half := rep.Candidates[0], rep.Candidates[1]
	if same.Verdict == VerdictWinner || same.Verdict == VerdictFaster || same.Verdict == VerdictFailed {
		t.Errorf("same: %s %.2f× %v (%v); want measured, not faster", same.Verdict, same.Speedup, same.CI, same.Failure)
	}
	peak, ok := rowOf(half, "command", PeakUnit)
	if half.Verdict != VerdictWinner || !ok || peak.Beside || peak.Speedup < 1.5 || peak.Speedup > 2.5 || peak.Base < 20e6 {
		t.Errorf("half: %s, peak row %+v; want the winner on a judged peak of over 20 MB, about 2× smaller", half.Verdict, peak)
	}
	if tm, ok := rowOf(half, "command", "sec"); !ok || !tm.Beside {
		t.Errorf("half: time row %+v; want the wall time beside the peak", tm)
	}

	goRepo := newHarness(t, allocRepo)
	_, err = goRepo.run(t, ctx, 2, Options{Test: "true", Metric: MetricRSS, Candidates: allocCands()[:1],
		MinPairs: 2, MaxPairs: 2, Timeout: time.Minute})
	if !errors.Is(err, ErrMetric) || !strings.Contains(err.Error(), "--bench") {
		t.Errorf("--metric rss on Go benchmarks: err = %v; want ErrMetric naming --bench", err)
	}
}
