package gobench

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// cpu pins the benchmarks the tests run; proc runs them unpinned where CPU
// 0 is not allowed or taskset is missing.
var cpu = Place{CPU: 0}

func TestBuild_Error(t *testing.T) {
	needGo(t)
	dir := newModule(t, map[string]string{
		"go.mod":          "module example.com/m\n\ngo 1.22\n",
		"bad/bad.go":      "package bad\n\nfunc F() int { return \"x\" }\n",
		"bad/bad_test.go": "package bad\n\nimport \"testing\"\n\nfunc BenchmarkF(b *testing.B) { F() }\n",
	})
	err := Build(context.Background(), dir, "example.com/m/bad", filepath.Join(t.TempDir(), "bad.test"), []string{"-tags=noasm"})
	if err == nil || !strings.Contains(err.Error(), "bad.go:3") {
		t.Fatalf("err = %v, want the compiler's message about bad.go:3", err)
	}
}

func TestCalibrate(t *testing.T) {
	bin, dir := testBinary(t)
	ctx := context.Background()
	counts, err := Calibrate(ctx, bin, dir, "^BenchmarkAlloc$", 20*time.Millisecond, cpu, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(counts) != 1 || counts[0].Bench != "BenchmarkAlloc" || counts[0].N < 1 || counts[0].SecPerOp <= 0 {
		t.Errorf("counts = %+v, want BenchmarkAlloc with at least 1, and its time per op", counts)
	}
	t.Run("BadTarget", func(t *testing.T) {
		if _, err := Calibrate(ctx, bin, dir, "^BenchmarkAlloc$", 0, cpu, nil); err == nil {
			t.Fatal("no error for a zero target")
		}
	})
}

// TestCalibrate_Sub checks issue 13.5. Every sub-benchmark gets its own
// count, and a tiny one far more iterations than a huge one. Each keeps its
// full name, although "size-1" ends as a GOMAXPROCS suffix would.
func TestCalibrate_Sub(t *testing.T) {
	bin, dir := testBinary(t)
	ctx := context.Background()
	counts, err := Calibrate(ctx, bin, dir, "^BenchmarkSpan$", 50*time.Millisecond, cpu, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int64{}
	for _, c := range counts {
		n[c.Bench] = c.N
	}
	tiny, huge := n["BenchmarkSpan/size-1"], n["BenchmarkSpan/size-1000000"]
	if len(counts) != 2 || tiny == 0 || huge == 0 {
		t.Fatalf("counts = %+v, want one for each of BenchmarkSpan/size-1 and BenchmarkSpan/size-1000000", counts)
	}
	if tiny <= huge {
		t.Errorf("tiny sub-benchmark calibrated to %d iterations, huge one to %d: want each its own", tiny, huge)
	}
	// Each runs alone with its own anchored pattern and count.
	for _, c := range counts {
		ms, err := Sample(ctx, bin, dir, c.Bench, c.N, cpu, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			if m.Bench != c.Bench || m.Iterations != c.N {
				t.Errorf("Sample(%s, %d) gave %s with %d iterations", c.Bench, c.N, m.Bench, m.Iterations)
			}
		}
	}
}

func TestList(t *testing.T) {
	bin, dir := testBinary(t)
	names, err := List(context.Background(), bin, dir, cpu)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"BenchmarkAlloc", "BenchmarkSpan", "BenchmarkData"} {
		if !slices.Contains(names, want) {
			t.Errorf("List = %q, want %s among them", names, want)
		}
	}
	if slices.ContainsFunc(names, func(n string) bool { return strings.Contains(n, "/") }) {
		t.Errorf("List = %q, want top-level names only", names)
	}
}

// TestCalibrate_Filter checks that a filter's sub-benchmark parts narrow
// calibration to the sub-benchmarks they select.
func TestCalibrate_Filter(t *testing.T) {
	bin, dir := testBinary(t)
	f, err := NewFilter("Span/size-1$")
	if err != nil {
		t.Fatal(err)
	}
	counts, err := Calibrate(context.Background(), bin, dir, f.Pattern("BenchmarkSpan"), 20*time.Millisecond, cpu, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(counts) != 1 || counts[0].Bench != "BenchmarkSpan/size-1" {
		t.Errorf("counts = %+v, want BenchmarkSpan/size-1 alone", counts)
	}
}

// TestCalibrate_Args checks issue 13.7: calibration gets the --bench-arg
// arguments, and without them a skipping benchmark's own message comes back.
func TestCalibrate_Args(t *testing.T) {
	bin, dir := testBinary(t)
	ctx := context.Background()
	_, err := Calibrate(ctx, bin, dir, "^BenchmarkData$", 20*time.Millisecond, cpu, nil)
	var nr *NoResultError
	if !errors.As(err, &nr) || !errors.Is(err, ErrNoResult) {
		t.Fatalf("err = %v, want a *NoResultError", err)
	}
	if !strings.Contains(nr.Said, "--- SKIP: BenchmarkData") || !strings.Contains(nr.Said, "no data files: run with -datadir DIR") {
		t.Errorf("Said = %q, want the SKIP line and the benchmark's message", nr.Said)
	}
	counts, err := Calibrate(ctx, bin, dir, "^BenchmarkData$", 20*time.Millisecond, cpu, []string{"-datadir=" + t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(counts) != 1 || counts[0].Bench != "BenchmarkData" {
		t.Errorf("counts = %+v, want BenchmarkData", counts)
	}
}

func TestSample(t *testing.T) {
	bin, dir := testBinary(t)
	ctx := context.Background()
	counts, err := Calibrate(ctx, bin, dir, "^BenchmarkAlloc$", 20*time.Millisecond, cpu, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := counts[0].N
	ms, err := Sample(ctx, bin, dir, "BenchmarkAlloc", n, cpu, nil)
	if err != nil {
		t.Fatal(err)
	}
	var units []string
	for _, m := range ms {
		if m.Bench != "BenchmarkAlloc" || m.Iterations != n || m.Value < 0 {
			t.Errorf("measurement %+v, want BenchmarkAlloc with %d iterations", m, n)
		}
		units = append(units, m.Unit)
	}
	if want := []string{"sec/op", "B/op", "allocs/op"}; !slices.Equal(units, want) {
		t.Errorf("units = %q, want %q", units, want)
	}
}

func TestSample_Sub(t *testing.T) {
	bin, dir := testBinary(t)
	ms, err := Sample(context.Background(), bin, dir, "BenchmarkSizes", 3, cpu, []string{"-test.cpu=1"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, m := range ms {
		got[m.Bench+" "+m.Unit] = m.Iterations == 3
	}
	for _, key := range []string{"BenchmarkSizes/n=10 sec/op", "BenchmarkSizes/n=10000 allocs/op", "BenchmarkSizes/n=10000 B/s"} {
		if !got[key] {
			t.Errorf("no %s with 3 iterations in %+v", key, ms)
		}
	}
}

// TestSample_Noisy checks that results survive output far larger than proc
// keeps in memory.
func TestSample_Noisy(t *testing.T) {
	bin, dir := testBinary(t)
	ms, err := Sample(context.Background(), bin, dir, "BenchmarkNoisy", 2, cpu, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range ms {
		if m.Unit == "sec/op" {
			names = append(names, m.Bench)
		}
	}
	if want := []string{"BenchmarkNoisy/first", "BenchmarkNoisy/second"}; !slices.Equal(names, want) {
		t.Errorf("benchmarks = %q, want %q", names, want)
	}
}

func TestSample_Errors(t *testing.T) {
	bin, dir := testBinary(t)
	t.Run("Fail", func(t *testing.T) {
		_, err := Sample(context.Background(), bin, dir, "BenchmarkFail", 1, cpu, nil)
		if err == nil || !strings.Contains(err.Error(), "boom at the bench") {
			t.Fatalf("err = %v, want the benchmark's output", err)
		}
	})
	t.Run("Skip", func(t *testing.T) {
		_, err := Sample(context.Background(), bin, dir, "BenchmarkSkip", 1, cpu, nil)
		if !errors.Is(err, ErrNoResult) {
			t.Fatalf("err = %v, want ErrNoResult", err)
		}
	})
	t.Run("NoSuchBenchmark", func(t *testing.T) {
		_, err := Sample(context.Background(), bin, dir, "BenchmarkAl", 1, cpu, nil)
		if !errors.Is(err, ErrNoResult) {
			t.Fatalf("err = %v, want ErrNoResult", err)
		}
	})
	t.Run("ZeroIterations", func(t *testing.T) {
		if _, err := Sample(context.Background(), bin, dir, "BenchmarkAlloc", 0, cpu, nil); err == nil {
			t.Fatal("no error for 0 iterations")
		}
	})
	t.Run("NoBinary", func(t *testing.T) {
		if _, err := Sample(context.Background(), filepath.Join(t.TempDir(), "none.test"), dir, "BenchmarkAlloc", 1, cpu, nil); err == nil {
			t.Fatal("no error for a missing binary")
		}
	})
}

func TestSample_Deadline(t *testing.T) {
	bin, dir := testBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Sample(ctx, bin, dir, "BenchmarkSleep", 1, cpu, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
	// The benchmark sleeps for 10 minutes: a minute means it was killed.
	if d := time.Since(start); d > time.Minute {
		t.Errorf("Sample returned after %s", d)
	}
	t.Run("Canceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := Sample(ctx, bin, dir, "BenchmarkAlloc", 1, cpu, nil)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
}
