package evaluator

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/evaluator/measure"
	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/internal/testenv/hog"
)

// TestRun_BusyMachine: with a CPU hog pinned beside the benchmark, the
// samples are recorded as disturbed in the store. The candidate's
// interference says how much, and the job warns with what helps.
func TestRun_BusyMachine(t *testing.T) {
	testenv.Once(t)
	if runtime.NumCPU() < 2 {
		t.Skip("one CPU: benchmarks are not pinned, and a hog would stall the test itself")
	}
	repo := map[string]string{
		"ok":       "yes\n",
		"test.sh":  "test \"$(cat ok)\" = yes\n",
		"bench.sh": "i=0; while [ $i -lt 40000 ]; do i=$((i+1)); done\n",
	}
	h := newHarness(t, repo)
	hog.Start(t, runtime.NumCPU()-1) // the CPU benchmarks are pinned to
	rep, err := h.run(t, context.Background(), 2, Options{
		Candidates: []candidate.Candidate{filesCand("same", map[string]string{"note": "x\n"})},
		Test:       "sh test.sh", Bench: "sh bench.sh", Timeout: time.Minute, Pin: true,
		MinPairs: 6, MaxPairs: 6,
	})
	if err != nil {
		t.Fatal(err)
	}
	c := find(rep, "same")
	i := c.Interference
	if i == nil || i.Samples != 12 || i.Disturbed < i.Samples/2 || i.OtherCPU < 0.25 {
		t.Fatalf("interference %+v (verdict %s, %+v), want most of 12 samples disturbed, other work >= 25%% of the CPU",
			i, c.Verdict, c.Failure)
	}
	t.Logf("with the hog: %s; speedup %.3f %v", i.Summary(), c.Speedup, c.CI)
	var warned bool
	for _, w := range rep.Warnings {
		warned = warned || (strings.Contains(w, "the machine was busy") && strings.Contains(w, "isolcpus") &&
			strings.Contains(w, "load average") &&
			strings.Contains(w, "--max-pairs"))
	}
	if !warned {
		t.Errorf("no busy-machine warning with advice in %q", rep.Warnings)
	}
	samples, err := h.db.BenchSamples(context.Background(), rep.Job, "same")
	if err != nil {
		t.Fatal(err)
	}
	disturbed := 0
	for _, s := range samples {
		if s.Probed && s.OtherCPU > measure.DisturbedOtherCPU {
			disturbed++
		}
	}
	if len(samples) != 12 || disturbed != i.Disturbed {
		t.Errorf("store: %d samples, %d disturbed; want 12, %d as reported", len(samples), disturbed, i.Disturbed)
	}
}

// slowAfterCalibration is a Go module whose benchmark does ten times the
// work when run for a fixed count (-test.benchtime=Nx, as samples are) than
// when calibrated (a duration). It looks like a base that calibrated on a
// quiet machine and then shares its CPU, without a hog's luck.
var slowAfterCalibration = map[string]string{
	"go.mod":     "module example.com/slow\n\ngo 1.22\n",
	"ops/ops.go": opsRepo["ops/ops.go"],
	"ops/ops_test.go": `package ops

import (
	"os"
	"strings"
	"testing"
)

var sink int

// sampling: run for a fixed count, as samples are, not calibrated.
var sampling = func() bool {
	for _, a := range os.Args {
		if strings.HasPrefix(a, "-test.benchtime=") && strings.HasSuffix(a, "x") {
			return true
		}
	}
	return false
}()

func BenchmarkWork(b *testing.B) {
	reps := 1
	if sampling {
		reps = 10 // not 3: on a loaded machine calibration itself may run 2-3x slow
	}
	for i := 0; i < b.N; i++ {
		for r := 0; r < reps; r++ {
			sink = Work(500)
		}
	}
}
`,
}

// TestRun_BaseSlowerThanCalibrated checks issue 13's "base samples far
// slower than their calibration". Every base sample of a benchmark that
// runs 3× slower than it calibrated is counted disturbed. That is said in
// the candidate's interference, and the job warns.
func TestRun_BaseSlowerThanCalibrated(t *testing.T) {
	testenv.Once(t)
	h := newHarness(t, slowAfterCalibration)
	cand := filesCand("same", map[string]string{"ops/ops.go": strings.Replace(opsRepo["ops/ops.go"], "sums n", "sums n (same)", 1)})
	shortSamples(t, 50*time.Millisecond)
	rep, err := h.run(t, context.Background(), 2, Options{Candidates: []candidate.Candidate{cand}, Test: "true",
		MinPairs: 3, MaxPairs: 3, Pin: true, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	c := find(rep, "same")
	i := c.Interference
	if i == nil || i.SlowBase != 3 || i.MaxBaseSlowdown < 2 || i.Disturbed < 3 || !i.Significant() {
		t.Fatalf("interference %+v (verdict %s, %v); want all 3 base samples about 10× slower than calibrated, significant",
			i, c.Verdict, c.Failure)
	}
	t.Logf("%s", i.Summary())
	if w := strings.Join(rep.Warnings, "\n"); !strings.Contains(w, busyWarning) || !strings.Contains(w, "3 base samples up to") {
		t.Errorf("warnings %q; want the busy-machine warning naming the slow base samples", rep.Warnings)
	}
}

// TestRun_BusyCalibration: with a CPU hog pinned beside Go benchmarks from
// the start, calibration shares the CPU, so the counts are raised to hold
// the target in CPU time, and the busy-machine warning says by how much.
// The estimate said before measuring counts the shared CPU.
func TestRun_BusyCalibration(t *testing.T) {
	testenv.Once(t)
	if runtime.NumCPU() < 2 {
		t.Skip("one CPU: benchmarks are not pinned, and a hog would stall the test itself")
	}
	h := newHarness(t, allocRepo)
	hog.Start(t, runtime.NumCPU()-1)
	rep, err := h.run(t, context.Background(), 2, allocOptions(t, MetricWall, "", allocCands()[0]))
	if err != nil {
		t.Fatal(err)
	}
	var warned bool
	for _, w := range rep.Warnings {
		warned = warned || strings.Contains(w, "the machine was busy") && strings.Contains(w, "calibrated on a shared CPU and raised up to")
	}
	if !warned {
		t.Errorf("no warning that the counts were raised, in %q", rep.Warnings)
	}

	said, _ := scopeEvents(t, h.db, rep.Job)
	want := fmt.Sprintf("of CPU %d that other work leaves", runtime.NumCPU()-1)
	if c := rep.Candidates[0].Name; !strings.Contains(said[c], want) {
		t.Errorf("%s's scope line %q; want an estimate %q", c, said[c], want)
	}
}
