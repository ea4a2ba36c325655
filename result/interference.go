package result

import "fmt"

// Interference summarises the disturbance of one candidate's samples (both
// sides). It is in the report's JSON as "interference".
type Interference struct {
	Samples       int     `json:"samples"`        // samples probed, or compared with their calibration
	Disturbed     int     `json:"disturbed"`      // of them, disturbed
	OtherCPU      float64 `json:"other_cpu"`      // median share of the benchmark CPU used by other work
	MaxOtherCPU   float64 `json:"max_other_cpu"`  // the largest share in one sample
	MaxSteal      float64 `json:"max_steal"`      // the largest steal share in one sample
	InvolSwitches float64 `json:"invol_switches"` // median involuntary context switches per sample
	// SlowBase counts the base samples over 1.5× their calibration's time
	// per op, and MaxBaseSlowdown is the largest such ratio (Go benchmarks
	// only; 0 otherwise).
	SlowBase        int     `json:"slow_base,omitempty"`
	MaxBaseSlowdown float64 `json:"max_base_slowdown,omitempty"`
}

// Significant reports whether at least half of the samples were disturbed:
// enough to say so in the report. A lone disturbed sample is the normal
// noise of a shared machine, which the statistics already carry.
func (i *Interference) Significant() bool {
	return i != nil && i.Disturbed > 0 && 2*i.Disturbed >= i.Samples
}

// Summary is one line for a report.
func (i *Interference) Summary() string {
	return fmt.Sprintf("%d of %d samples disturbed: other work took a median %.0f%% of the benchmark CPU (at most %.0f%%), steal at most %.0f%%, a median %.0f involuntary context switches a sample%s",
		i.Disturbed, i.Samples, 100*i.OtherCPU, 100*i.MaxOtherCPU, 100*i.MaxSteal, i.InvolSwitches, i.SlowBaseNote())
}

// SlowBaseNote is ", N base samples up to R× slower than calibrated", or "".
func (i *Interference) SlowBaseNote() string {
	if i.SlowBase == 0 {
		return ""
	}
	return fmt.Sprintf(", %d base samples up to %.1f× slower than calibrated", i.SlowBase, i.MaxBaseSlowdown)
}
