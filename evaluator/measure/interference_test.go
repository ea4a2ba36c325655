package measure

import (
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/proc"
)

// TestDisturbanceBetween: the busy time that is neither the benchmark's nor optimizer's
// is other work.
func TestDisturbanceBetween(t *testing.T) {
	a := snapshot{ok: true, cpu: proc.CPUTimes{Busy: 1000, Steal: 0, Total: 5000}, ours: 3 * time.Second, children: 10}
	for _, tt := range []struct {
		name      string
		b         snapshot
		other     float64
		disturbed bool
	}{
		// 1 s of wall on the CPU: all of it busy, 0.5 s of it ours.
		{"Hog", snapshot{ok: true, cpu: proc.CPUTimes{Busy: 1100, Total: 5100}, ours: 3500 * time.Millisecond, children: 60}, 0.5, true},
		// 1 s: 0.52 s busy, 0.5 s ours.
		{"Quiet", snapshot{ok: true, cpu: proc.CPUTimes{Busy: 1052, Total: 5100}, ours: 3500 * time.Millisecond, children: 12}, 0.02, false},
		// ours exceeds the CPU's busy time (optimizer ran elsewhere): no other work.
		{"OursElsewhere", snapshot{ok: true, cpu: proc.CPUTimes{Busy: 1050, Total: 5100}, ours: 4 * time.Second}, 0, false},
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
