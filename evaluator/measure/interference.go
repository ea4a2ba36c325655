package measure

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/optimizer-dev/optimizer/machine"
	"github.com/optimizer-dev/optimizer/proc"
	"github.com/optimizer-dev/optimizer/result"
	"github.com/optimizer-dev/optimizer/stats"
)

// A busy machine is detected, not trusted. Other work on the benchmark's
// CPU both widens intervals and pulls every ratio toward 1×, so each sample
// of phase 2 is taken between two probes of the machine:
//
//   - /proc/stat: the busy and steal time of the CPU benchmarks are pinned
//     to (of all CPUs, when they are not pinned);
//   - getrusage: the CPU time of optimizer itself and of its waited-for
//     children (the benchmark process), and the children's involuntary
//     context switches;
//   - for Go benchmarks, base's own time per op against its calibration's
//     (the same binary, the same iteration count, run once per job before
//     any sample). A base sample far slower than when it was calibrated
//     shared its CPU, whatever the probes saw. They cannot see a
//     hypervisor's neighbours without steal, or a busy memory bus.
//
// The busy time that is neither the benchmark's nor optimizer's is other
// work: OtherCPU is its share of the probed CPU time. It is recorded per
// sample in the store (bench_samples.other_cpu, steal, invol_switches), and
// summarised per candidate (CandidateResult.Interference). A job whose
// samples were disturbed gets a warning that says how much and what helps.

// Thresholds for a disturbed sample.
const (
	DisturbedOtherCPU = 0.10 // other work took more than this share of the benchmark CPU
	disturbedSteal    = 0.02 // the hypervisor took more than this share
	disturbedSlowdown = 1.5  // a base sample took this many times its calibration's time per op
)

// Disturbance is what competed with one sample.
type Disturbance struct {
	Probed        bool    // the probes could be read (Linux)
	OtherCPU      float64 // share of the probed CPU time used by other work
	Steal         float64 // share of the probed CPU time stolen by a hypervisor
	InvolSwitches int64   // the benchmark processes' involuntary context switches
	// BaseSlowdown is, for a base sample of Go benchmarks, its largest
	// time per op over the same benchmark's at calibration; 0 when not
	// known (a candidate's sample, a bench command).
	BaseSlowdown float64
}

// Disturbed reports whether the sample shared its CPU with enough other work
// to count, or, at base, ran far slower than when it was calibrated.
func (d Disturbance) Disturbed() bool {
	return d.BaseSlowdown > disturbedSlowdown || d.Probed && (d.OtherCPU > DisturbedOtherCPU || d.Steal > disturbedSteal)
}

// known reports whether anything was learned about the sample.
func (d Disturbance) known() bool { return d.Probed || d.BaseSlowdown > 0 }

// snapshot is the machine at one instant, as the probes see it.
type snapshot struct {
	ok       bool
	cpu      proc.CPUTimes
	ncpu     int           // CPUs the times cover
	ours     time.Duration // optimizer's and its waited-for children's user+sys time
	children int64         // the children's involuntary context switches
}

// probe reads a snapshot for cpu (-1: all CPUs).
func probe(cpu int) snapshot {
	s := snapshot{ncpu: 1}
	if cpu < 0 {
		s.ncpu = runtime.NumCPU()
	}
	var ok bool
	if s.cpu, ok = proc.ReadCPUTimes(cpu); !ok {
		return snapshot{}
	}
	var self, kids syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &self) != nil || syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids) != nil {
		return snapshot{}
	}
	// A sandboxed child's CPU time never reaches RUSAGE_CHILDREN; without
	// it a quiet machine's benchmark would count as other work.
	s.ours = rusageCPU(self) + rusageCPU(kids) + proc.UnreapedCPU()
	s.children = int64(kids.Nivcsw)
	s.ok = true
	return s
}

func rusageCPU(r syscall.Rusage) time.Duration {
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}

// disturbanceBetween is the disturbance between snapshot a and the later b.
func disturbanceBetween(a, b snapshot) Disturbance {
	if !a.ok || !b.ok || b.cpu.Total <= a.cpu.Total {
		return Disturbance{}
	}
	total := float64(b.cpu.Total-a.cpu.Total) * float64(proc.ClockTick)
	busy := float64(b.cpu.Busy-a.cpu.Busy) * float64(proc.ClockTick)
	other := max(0, busy-float64(b.ours-a.ours))
	return Disturbance{
		Probed:        true,
		OtherCPU:      min(1, other/total),
		Steal:         float64(b.cpu.Steal-a.cpu.Steal) * float64(proc.ClockTick) / total,
		InvolSwitches: b.children - a.children,
	}
}

// watched is a sampler whose every sample is taken between two probes. The
// disturbance is set on each metric the sample returns, and kept for the
// candidate's summary.
type watched struct {
	Sampler
	cpu  int
	sum  func(*result.Interference)
	seen []Disturbance
}

// Watch wraps smp so that each sample is probed on cpu (-1: all CPUs).
// After each probed sample, sum receives the summary of all so far.
func Watch(smp Sampler, cpu int, sum func(*result.Interference)) Sampler {
	return &watched{Sampler: smp, cpu: cpu, sum: sum}
}

// calibrated is a sampler that knows how much slower than its calibration
// the base sample it just took ran (0: unknown).
type calibrated interface {
	baseSlowdown() float64
}

func (g *GoSampler) baseSlowdown() float64 { return g.slow }

var _ calibrated = (*GoSampler)(nil)

// Rotate passes the round on to a sampler that rotates its settings.
func (w *watched) Rotate(r int) {
	if rot, ok := w.Sampler.(Rotator); ok {
		rot.Rotate(r)
	}
}

func (w *watched) Sample(ctx context.Context, s Side) ([]Metric, error) {
	before := probe(w.cpu)
	ms, err := w.Sampler.Sample(ctx, s)
	if err != nil {
		return ms, err
	}
	d := disturbanceBetween(before, probe(w.cpu))
	if c, ok := w.Sampler.(calibrated); ok && s == Base {
		d.BaseSlowdown = c.baseSlowdown()
	}
	for i := range ms {
		ms[i].Dist = d
	}
	if d.known() {
		w.seen = append(w.seen, d)
		w.sum(summarize(w.seen))
	}
	return ms, nil
}

// summarize makes the candidate's summary of its probed samples.
func summarize(ds []Disturbance) *result.Interference {
	if len(ds) == 0 {
		return nil
	}
	sum := &result.Interference{Samples: len(ds)}
	other := make([]float64, len(ds))
	sw := make([]float64, len(ds))
	for i, d := range ds {
		if d.Disturbed() {
			sum.Disturbed++
		}
		other[i], sw[i] = d.OtherCPU, float64(d.InvolSwitches)
		sum.MaxOtherCPU = max(sum.MaxOtherCPU, d.OtherCPU)
		sum.MaxSteal = max(sum.MaxSteal, d.Steal)
		if d.BaseSlowdown > disturbedSlowdown {
			sum.SlowBase++
		}
		sum.MaxBaseSlowdown = max(sum.MaxBaseSlowdown, d.BaseSlowdown)
	}
	sum.OtherCPU, sum.InvolSwitches = stats.Median(other), stats.Median(sw)
	return sum
}

// LoadAverage is "load average L on N CPUs" from /proc/loadavg, or "" where
// it is unknown.
func LoadAverage() string {
	l := machine.Load()
	if l == "unknown" {
		return ""
	}
	first, _, _ := strings.Cut(l, " ")
	return fmt.Sprintf("load average %s on %d CPUs", first, runtime.NumCPU())
}
