package evaluator

import (
	"context"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/internal/testenv"
)

func TestParseProcStat(t *testing.T) {
	stat := []byte("cpu  100 5 50 1000 20 3 2 10 0 0\ncpu0 40 1 20 500 10 1 1 4 0 0\ncpu1 60 4 30 500 10 2 1 6 0 0\nintr 1 2 3\n")
	for _, tt := range []struct {
		cpu  int
		want cpuTimes
	}{
		{-1, cpuTimes{busy: 160, steal: 10, total: 1190}},
		{1, cpuTimes{busy: 97, steal: 6, total: 613}},
	} {
		got, ok := parseProcStat(stat, tt.cpu)
		if !ok || got != tt.want {
			t.Errorf("cpu %d: got %+v, %v; want %+v", tt.cpu, got, ok, tt.want)
		}
	}
	if _, ok := parseProcStat(stat, 7); ok {
		t.Error("cpu7 found in a stat of two CPUs")
	}
}

// TestDisturbanceBetween: the busy time that is neither the benchmark's nor optimizer's
// is other work.
func TestDisturbanceBetween(t *testing.T) {
	a := snapshot{ok: true, cpu: cpuTimes{busy: 1000, steal: 0, total: 5000}, ours: 3 * time.Second, children: 10}
	for _, tt := range []struct {
		name      string
		b         snapshot
		other     float64
		disturbed bool
	}{
		// 1 s of wall on the CPU: all of it busy, 0.5 s of it ours.
		{"Hog", snapshot{ok: true, cpu: cpuTimes{busy: 1100, total: 5100}, ours: 3500 * time.Millisecond, children: 60}, 0.5, true},
		// 1 s: 0.52 s busy, 0.5 s ours.
		{"Quiet", snapshot{ok: true, cpu: cpuTimes{busy: 1052, total: 5100}, ours: 3500 * time.Millisecond, children: 12}, 0.02, false},
		// ours exceeds the CPU's busy time (optimizer ran elsewhere): no other work.
		{"OursElsewhere", snapshot{ok: true, cpu: cpuTimes{busy: 1050, total: 5100}, ours: 4 * time.Second}, 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := disturbanceBetween(a, tt.b)
			if !d.Probed || d.OtherCPU < tt.other-1e-9 || d.OtherCPU > tt.other+1e-9 || d.Disturbed() != tt.disturbed {
				t.Errorf("since = %+v (disturbed %v), want other %.2f, disturbed %v", d, d.Disturbed(), tt.other, tt.disturbed)
			}
		})
	}
	if d := disturbanceBetween(snapshot{}, a); d.Probed || d.Disturbed() {
		t.Errorf("an unreadable probe gave %+v", d)
	}
}

// startHog runs a busy loop pinned to cpu, in its own process group, until
// the test ends.
func startHog(t *testing.T, cpu int) {
	t.Helper()
	if _, err := exec.LookPath("taskset"); err != nil {
		t.Skip("taskset (util-linux) is not installed: cannot pin the CPU hog")
	}
	cmd := exec.Command("taskset", "-c", strconv.Itoa(cpu), "sh", "-c", "while :; do :; done")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
}

// TestRun_BusyMachine: with a CPU hog pinned beside the benchmark, the
// samples are recorded as disturbed in the store, the candidate's
// interference says how much, and the job warns with what helps.
func TestRun_BusyMachine(t *testing.T) {
	testenv.Long(t)
	if runtime.NumCPU() < 2 {
		t.Skip("one CPU: benchmarks are not pinned, and a hog would stall the test itself")
	}
	repo := map[string]string{
		"ok":       "yes\n",
		"test.sh":  "test \"$(cat ok)\" = yes\n",
		"bench.sh": "i=0; while [ $i -lt 40000 ]; do i=$((i+1)); done\n",
	}
	h := newHarness(t, repo)
	startHog(t, runtime.NumCPU()-1) // the CPU benchmarks are pinned to
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
		if s.Probed && s.OtherCPU > disturbedOtherCPU {
			disturbed++
		}
	}
	if len(samples) != 12 || disturbed != i.Disturbed {
		t.Errorf("store: %d samples, %d disturbed; want 12, %d as reported", len(samples), disturbed, i.Disturbed)
	}
}

// TestDisturbance_BaseSlowdown: a base sample far slower than its
// calibration is disturbed even when the probes saw nothing (or could not
// read), and the summary counts it.
func TestDisturbance_BaseSlowdown(t *testing.T) {
	for _, tt := range []struct {
		name      string
		d         Disturbance
		disturbed bool
	}{
		{"SlowUnprobed", Disturbance{BaseSlowdown: 2.5}, true},
		{"SlowQuietProbes", Disturbance{Probed: true, OtherCPU: 0.01, BaseSlowdown: 1.8}, true},
		{"AsCalibrated", Disturbance{Probed: true, OtherCPU: 0.01, BaseSlowdown: 1.1}, false},
		{"Unknown", Disturbance{Probed: true}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.d.Disturbed(); got != tt.disturbed {
				t.Errorf("%+v: disturbed %v, want %v", tt.d, got, tt.disturbed)
			}
		})
	}
	sum := summarize([]Disturbance{{Probed: true, BaseSlowdown: 2.5}, {Probed: true}, {Probed: true, BaseSlowdown: 1.1}, {Probed: true}})
	if sum.SlowBase != 1 || sum.MaxBaseSlowdown != 2.5 || sum.Disturbed != 1 ||
		!strings.Contains(sum.Summary(), "1 base samples up to 2.5× slower than calibrated") {
		t.Errorf("summary %+v (%s); want 1 slow base sample, at most 2.5×", sum, sum.Summary())
	}
}

// slowAfterCalibration is a Go module whose benchmark does ten times the
// work when run for a fixed count (-test.benchtime=Nx, as samples are) than
// when calibrated (a duration): what a base that calibrated on a quiet
// machine and then shares its CPU looks like, without a hog's luck.
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
// slower than their calibration": every base sample of a benchmark that
// runs 3× slower than it calibrated is counted disturbed, said in the
// candidate's interference, and the job warns.
func TestRun_BaseSlowerThanCalibrated(t *testing.T) {
	testenv.Long(t)
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
