package evaluator

import (
	"context"
	"fmt"
	"strings"

	"github.com/optimizer-dev/optimizer/evaluator/measure"
)

// busyWarning starts the job's warning about a busy machine.
const busyWarning = "the machine was busy"

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
	load := measure.LoadAverage()
	if load != "" {
		load = ", " + load
	}
	j.warn(ctx, busyWarning+": other work shared %s while benchmarking (%s%s)%s. "+
		"That widens intervals and pulls every ratio toward 1×.%s What helps: wait for a quiet machine; %s; "+
		"or raise --max-pairs and --bench-budget",
		where, strings.Join(hit[:min(3, len(hit))], "; "), more(len(hit), 3), load, j.scaledNote(), isolate)
}

// scaledNote says how far iteration counts were scaled to CPU time because
// calibration shared a busy CPU; "" when they were not.
func (j *job) scaledNote() string {
	if j.calib == nil {
		return ""
	}
	scale := j.calib.Scale()
	if scale <= 1 {
		return ""
	}
	return fmt.Sprintf(" Iteration counts were calibrated on a shared CPU and raised up to %.1f×, so that a sample holds %s of CPU time; samples took that much longer.",
		scale, calibrateTarget)
}

// more is ", …" when n things are more than the shown ones.
func more(n, shown int) string {
	if n > shown {
		return ", …"
	}
	return ""
}
