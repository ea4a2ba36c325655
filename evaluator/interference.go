package evaluator

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/optimizer-dev/optimizer/proc"
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
//     any sample): a base sample far slower than when it was calibrated
//     shared its CPU, whatever the probes saw (they cannot see a
//     hypervisor's neighbours without steal, or a busy memory bus).
//
// The busy time that is neither the benchmark's nor optimizer's is other
// work: OtherCPU is its share of the probed CPU time. It is recorded per
// sample in the store (bench_samples.other_cpu, steal, invol_switches),
// summarised per candidate (CandidateResult.Interference), and a job whose
// samples were disturbed gets a warning that says how much and what helps.

// busyWarning starts the job's warning about a busy machine.
const busyWarning = "the machine was busy"

// Thresholds for a disturbed sample.
const (
	disturbedOtherCPU = 0.10 // other work took more than this share of the benchmark CPU
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
	return d.BaseSlowdown > disturbedSlowdown || d.Probed && (d.OtherCPU > disturbedOtherCPU || d.Steal > disturbedSteal)
}

// known reports whether anything was learned about the sample.
func (d Disturbance) known() bool { return d.Probed || d.BaseSlowdown > 0 }

// cpuTimes is one line of /proc/stat, in clock ticks.
type cpuTimes struct {
	busy, steal, total uint64
}

// snapshot is the machine at one instant, as the probes see it.
type snapshot struct {
	ok       bool
	cpu      cpuTimes
	ncpu     int           // CPUs the times cover
	ours     time.Duration // optimizer's and its waited-for children's user+sys time
	children int64         // the children's involuntary context switches
}

// clockTick is USER_HZ, the unit of /proc/stat: 100 on every Linux ABI Go
// supports.
const clockTick = time.Second / 100

// probe reads a snapshot for cpu (-1: all CPUs).
func probe(cpu int) snapshot {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return snapshot{}
	}
	s := snapshot{ncpu: 1}
	if cpu < 0 {
		s.ncpu = runtime.NumCPU()
	}
	var ok bool
	if s.cpu, ok = parseProcStat(b, cpu); !ok {
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

// parseProcStat finds the line of cpu (-1: the "cpu" total) in /proc/stat.
func parseProcStat(b []byte, cpu int) (cpuTimes, bool) {
	want := "cpu"
	if cpu >= 0 {
		want += strconv.Itoa(cpu)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 9 || f[0] != want {
			continue
		}
		var v [8]uint64 // user nice system idle iowait irq softirq steal
		for i := range v {
			n, err := strconv.ParseUint(f[i+1], 10, 64)
			if err != nil {
				return cpuTimes{}, false
			}
			v[i] = n
		}
		busy := v[0] + v[1] + v[2] + v[5] + v[6]
		return cpuTimes{busy: busy, steal: v[7], total: busy + v[3] + v[4] + v[7]}, true
	}
	return cpuTimes{}, false
}

// disturbanceBetween is the disturbance between snapshot a and the later b.
func disturbanceBetween(a, b snapshot) Disturbance {
	if !a.ok || !b.ok || b.cpu.total <= a.cpu.total {
		return Disturbance{}
	}
	total := float64(b.cpu.total-a.cpu.total) * float64(clockTick)
	busy := float64(b.cpu.busy-a.cpu.busy) * float64(clockTick)
	other := max(0, busy-float64(b.ours-a.ours))
	return Disturbance{
		Probed:        true,
		OtherCPU:      min(1, other/total),
		Steal:         float64(b.cpu.steal-a.cpu.steal) * float64(clockTick) / total,
		InvolSwitches: b.children - a.children,
	}
}

// watched is a sampler whose every sample is taken between two probes. The
// disturbance is set on each metric the sample returns, and kept for the
// candidate's summary.
type watched struct {
	sampler
	j    *job
	c    *cand
	cpu  int
	seen []Disturbance
}

// watch wraps smp so that each of c's samples is probed.
func (j *job) watch(c *cand, smp sampler) sampler {
	return &watched{sampler: smp, j: j, c: c, cpu: j.cpu()}
}

// calibrated is a sampler that knows how much slower than its calibration
// the base sample it just took ran (0: unknown).
type calibrated interface {
	baseSlowdown() float64
}

func (g *goSampler) baseSlowdown() float64 { return g.slow }

var _ calibrated = (*goSampler)(nil)

func (w *watched) sample(ctx context.Context, s side) ([]metric, error) {
	before := probe(w.cpu)
	ms, err := w.sampler.sample(ctx, s)
	if err != nil {
		return ms, err
	}
	d := disturbanceBetween(before, probe(w.cpu))
	if c, ok := w.sampler.(calibrated); ok && s == sideBase {
		d.BaseSlowdown = c.baseSlowdown()
	}
	for i := range ms {
		ms[i].dist = d
	}
	if d.known() {
		w.seen = append(w.seen, d)
		sum := summarize(w.seen)
		w.j.mu.Lock()
		w.c.res.Interference = sum
		w.j.mu.Unlock()
	}
	return ms, nil
}

// summarize makes the candidate's summary of its probed samples.
func summarize(ds []Disturbance) *Interference {
	if len(ds) == 0 {
		return nil
	}
	sum := &Interference{Samples: len(ds)}
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

// warnInterference warns once per job when any candidate's samples were
// disturbed: how much, and what helps.
func (j *job) warnInterference(ctx context.Context) {
	var hit []string
	j.mu.Lock()
	for _, c := range j.cands {
		if i := c.res.Interference; i.Significant() {
			hit = append(hit, fmt.Sprintf("%s %d of %d samples, other work a median %.0f%% of the CPU%s",
				c.spec.Name, i.Disturbed, i.Samples, 100*i.OtherCPU, i.SlowBaseNote()))
		}
	}
	j.mu.Unlock()
	if len(hit) == 0 {
		return
	}
	where, isolate := "the machine", "keep other work off the machine"
	if cpu := j.cpu(); cpu >= 0 {
		where = fmt.Sprintf("CPU %d, where benchmarks are pinned", cpu)
		isolate = fmt.Sprintf("keep other work off CPU %d (boot with isolcpus=%d, or cset shield -c %d)", cpu, cpu, cpu)
	}
	load := LoadAverage()
	if load != "" {
		load = ", " + load
	}
	j.warn(ctx, busyWarning+": other work shared %s while benchmarking (%s%s)%s. "+
		"That widens intervals and pulls every ratio toward 1×. What helps: wait for a quiet machine; %s; "+
		"or raise --max-pairs and --bench-budget",
		where, strings.Join(first(hit, 3), "; "), more(len(hit), 3), load, isolate)
}

// LoadAverage is "load average L on N CPUs" from /proc/loadavg, or "" where
// it is unknown.
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return ""
	}
	return fmt.Sprintf("load average %s on %d CPUs", f[0], runtime.NumCPU())
}
