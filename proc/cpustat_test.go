package proc

import "testing"

func TestParseCPUTimes(t *testing.T) {
	stat := []byte("cpu  100 5 50 1000 20 3 2 10 0 0\ncpu0 40 1 20 500 10 1 1 4 0 0\ncpu1 60 4 30 500 10 2 1 6 0 0\nintr 1 2 3\n")
	for _, tt := range []struct {
		cpu  int
		want CPUTimes
	}{
		{-1, CPUTimes{Busy: 160, Steal: 10, Total: 1190}},
		{1, CPUTimes{Busy: 97, Steal: 6, Total: 613}},
	} {
		got, ok := ParseCPUTimes(stat, tt.cpu)
		if !ok || got != tt.want {
			t.Errorf("cpu %d: got %+v, %v; want %+v", tt.cpu, got, ok, tt.want)
		}
	}
	if _, ok := ParseCPUTimes(stat, 7); ok {
		t.Error("cpu7 found in a stat of two CPUs")
	}
}

func TestBusyShare(t *testing.T) {
	a := CPUTimes{Busy: 100, Steal: 10, Total: 1000}
	if s, ok := BusyShare(a, CPUTimes{Busy: 160, Steal: 30, Total: 1100}); !ok || s != 0.8 {
		t.Errorf("BusyShare = %v, %v; want 0.8, true", s, ok)
	}
	if _, ok := BusyShare(a, a); ok {
		t.Error("BusyShare of no ticks is known")
	}
}
