package gobench

import (
	"context"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/internal/testenv/hog"
	"github.com/optimizer-dev/optimizer/proc"
)

func TestCPUScaled(t *testing.T) {
	for _, tt := range []struct {
		share float64
		want  int64
	}{
		{0, 1000},     // unknown
		{0.95, 1000},  // a CPU to itself
		{0.5, 2000},   // shared with one other process
		{0.2, 5000},   // with four
		{0.01, 8000},  // bounded by MaxCPUScale
		{0.333, 3004}, // rounded up
	} {
		if got := CPUScaled(1000, tt.share); got != tt.want {
			t.Errorf("CPUScaled(1000, %v) = %d, want %d", tt.share, got, tt.want)
		}
	}
}

func TestContendedShare(t *testing.T) {
	before := proc.CPUTimes{Busy: 1000, Total: 5000}
	half := proc.Result{Wall: time.Second, CPU: 500 * time.Millisecond}
	for _, tt := range []struct {
		name  string
		after proc.CPUTimes
		res   proc.Result
		want  float64
	}{
		{"Contended", proc.CPUTimes{Busy: 1100, Total: 5100}, half, 0.5},
		{"WaitsOnIO", proc.CPUTimes{Busy: 1050, Total: 5100}, half, 0}, // the CPU was idle half the time
		{"StolenCounts", proc.CPUTimes{Busy: 1080, Steal: 20, Total: 5100}, half, 0.5},
		{"NoTick", before, half, 0},
		{"NoCPUTime", proc.CPUTimes{Busy: 1100, Total: 5100}, proc.Result{Wall: time.Second}, 0},
	} {
		if got := contendedShare(before, tt.after, tt.res); got != tt.want {
			t.Errorf("%s: contendedShare = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestCalibrate_BusyCPU calibrates beside a busy loop pinned to the same
// CPU. The run gets at most about half of it, so its count is scaled to CPU
// time. The testing package stops calibrating at a run of the target's wall
// time or more, so a sample of the scaled count holds the target in CPU
// time: its wall time at the calibration's pace, times the share, is the
// target or more (less only where MaxCPUScale bounds it).
func TestCalibrate_BusyCPU(t *testing.T) {
	bin, dir := testBinary(t)
	if !proc.CanPin(cpu.CPU) {
		t.Skipf("cannot pin to CPU %d", cpu.CPU)
	}
	hog.Start(t, cpu.CPU)
	target := 100 * time.Millisecond
	counts, err := Calibrate(context.Background(), bin, dir, "^BenchmarkAlloc$", target, cpu, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := counts[0]
	wall := time.Duration(float64(c.N) * c.SecPerOp * float64(time.Second))
	t.Logf("share %.2f, %d iterations of %.3g s: %s of wall time", c.Share, c.N, c.SecPerOp, wall)
	// On a machine so busy that the scale hit its bound, less.
	want := float64(target) * min(1, c.Share*MaxCPUScale)
	if c.Share <= 0 || c.Share > 0.75 || c.Share*float64(wall) < 0.99*want {
		t.Errorf("beside a busy loop: share %.2f, %s of wall time; want a share of at most 0.75, and %s of CPU time or more",
			c.Share, wall, target)
	}
}
