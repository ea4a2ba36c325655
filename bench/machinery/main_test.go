package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/internal/testenv"
)

// TestMain lets the test binary be the CPU-bound test command, as the
// harness's own binary is. The tests run off the machine's lock.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == spinCommand {
		spinMain(os.Args[2:])
		return
	}
	testenv.Main(m)
}

func TestMedian(t *testing.T) {
	for _, tt := range []struct {
		in   []time.Duration
		want time.Duration
	}{
		{nil, 0},
		{[]time.Duration{3}, 3},
		{[]time.Duration{5, 1, 3}, 3},
		{[]time.Duration{4, 1, 3, 2}, 2},
	} {
		if got := median(tt.in); got != tt.want {
			t.Errorf("median(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestRatio(t *testing.T) {
	if got := ratio(110, 100, 1.10); got != "1.10× ✓" {
		t.Errorf("ratio at the target: %q", got)
	}
	if got := ratio(111, 100, 1.10); got != "1.11× ✗" {
		t.Errorf("ratio past the target: %q", got)
	}
}

// TestRun runs the harness end to end on a tiny repository, so that it keeps
// working; it is not a measurement.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("makes repositories and slots")
	}
	var out, errb bytes.Buffer
	args := []string{"-files", "60", "-reps", "1", "-naive", "1", "-overhead-candidates", "2", "-candidates", "2",
		"-cpu-candidates", "1", "-j", "1,2", "-cold-j", "2", "-sleep", "10ms", "-cpu", "10ms", "-first-candidates", "2",
		"-first-j", "2", "-mem-candidates", "2", "-only", "overhead,scaling,first,warm", "-no-machine-lock", "-work", t.TempDir()}
	if err := run(context.Background(), args, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	for _, want := range []string{"Overhead per candidate", "sleep-bound", "zero-cost", "CPU-bound", "first test", "Warm re-run"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in the output:\n%s", want, out.String())
		}
	}
}
