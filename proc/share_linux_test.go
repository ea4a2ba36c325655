package proc_test

import (
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/internal/testenv/hog"
	"github.com/optimizer-dev/optimizer/proc"
)

// TestCPUShare starts a busy loop pinned to a CPU: a probe there must get
// about half of it at most. Where the CPU was free before, the probe got
// nearly all of it then. Other load lowers both shares.
func TestCPUShare(t *testing.T) {
	if _, ok := proc.CPUShare(-1, time.Millisecond); ok {
		t.Error("proc.CPUShare(-1) is ok; want false, as there is no CPU to pin to")
	}
	cpu := 0
	if !proc.CanPin(cpu) {
		t.Skipf("cannot pin to CPU %d", cpu)
	}
	alone, ok := proc.CPUShare(cpu, 200*time.Millisecond)
	if !ok {
		t.Fatal("CPUShare is false on Linux")
	}
	hog.Start(t, cpu)
	shared, ok := proc.CPUShare(cpu, 200*time.Millisecond)
	if !ok {
		t.Fatal("CPUShare is false with a hog running")
	}
	t.Logf("share of CPU %d: %.2f alone, %.2f beside a busy loop", cpu, alone, shared)
	if shared > 0.75 {
		t.Errorf("beside a busy loop the probe got %.2f of the CPU; want about half", shared)
	}
	if alone < 0.9 {
		return // other work shared the CPU before the hog came
	}
	if shared > alone-0.2 {
		t.Errorf("the probe got %.2f beside a busy loop and %.2f of a free CPU; want far less beside it", shared, alone)
	}
}
