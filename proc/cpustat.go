package proc

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"time"
)

// CPUTimes is one line of /proc/stat, in clock ticks (ClockTick).
type CPUTimes struct {
	Busy  uint64 // user, nice, system, irq and softirq
	Steal uint64 // taken by the hypervisor
	Total uint64 // busy, idle, iowait and steal
}

// ClockTick is USER_HZ, the unit of /proc/stat: 100 on every Linux ABI Go
// supports.
const ClockTick = time.Second / 100

// ReadCPUTimes reads cpu's line of /proc/stat, or the "cpu" total when cpu
// is -1. It is false off Linux.
func ReadCPUTimes(cpu int) (CPUTimes, bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return CPUTimes{}, false
	}
	return ParseCPUTimes(b, cpu)
}

// ParseCPUTimes finds the line of cpu (-1: the "cpu" total) in the text of
// /proc/stat.
func ParseCPUTimes(b []byte, cpu int) (CPUTimes, bool) {
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
				return CPUTimes{}, false
			}
			v[i] = n
		}
		busy := v[0] + v[1] + v[2] + v[5] + v[6]
		return CPUTimes{Busy: busy, Steal: v[7], Total: busy + v[3] + v[4] + v[7]}, true
	}
	return CPUTimes{}, false
}

// BusyShare is the share of the time from a to the later b that the CPU
// was busy or stolen; false when no tick passed.
func BusyShare(a, b CPUTimes) (float64, bool) {
	if b.Total <= a.Total {
		return 0, false
	}
	return float64(b.Busy-a.Busy+b.Steal-a.Steal) / float64(b.Total-a.Total), true
}
