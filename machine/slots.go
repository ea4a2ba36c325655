// Package machine says what this machine is: its CPUs and memory, and the
// slots a job affords on it. It also gives the memory cap of each process,
// and the host that benchmark samples record.
package machine

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// SlotsAuto asks Slots for automatic sizing: CPUs-1, and at least 1. It is
// at least 2 on two or more CPUs for a test command other than go test, and
// lowered when free memory is short.
const SlotsAuto = -1

// memPerSlot is the free memory that automatic sizing wants for each slot:
// a go test of a mid-sized module, its compiler and linker included.
const memPerSlot = 1536 << 20

// Info is what automatic slot sizing looks at.
type Info struct {
	CPUs     int
	MemAvail uint64 // bytes; 0 when unknown
}

// Read reads the CPU count and MemAvailable from /proc/meminfo.
func Read() Info {
	m := Info{CPUs: runtime.NumCPU()}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		m.MemAvail = memAvailable(b)
	}
	return m
}

// memAvailable parses the MemAvailable line of /proc/meminfo, in bytes.
func memAvailable(meminfo []byte) uint64 {
	sc := bufio.NewScanner(bytes.NewReader(meminfo))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 || f[0] != "MemAvailable:" {
			continue
		}
		n, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			return 0
		}
		if len(f) > 2 && f[2] == "kB" {
			n *= 1024
		}
		return n
	}
	return 0
}

// Slots decides the effective number of slots for a job of n candidates
// whose test command is test ("" is the detected default), and says why.
// The want argument is the number asked for (-j): SlotsAuto, 0 for one per
// candidate, or a number. The baseline's tests run beside the candidates',
// so more than n+1 slots can never all be busy. The rest would be made for
// nothing. The CLI sizes its jobs with it, and the daemon its machine-wide
// budget.
//
// Auto is CPUs-1. The go test command runs packages in parallel itself, and
// each slot compiles the module anew. On 2 CPUs a second slot showed no
// gain for Go jobs (paired ratios around 1.00x, docs/speed.md) and doubled
// their memory. So Go jobs keep one. A test command that is not go test,
// often single-threaded, ran 1.75x faster with two slots there. So it gets
// at least 2 on two or more CPUs.
func Slots(want, candidates int, test string, m Info) (int, string) {
	most := candidates + 1
	switch {
	case want == 0:
		return max(1, candidates), "one per candidate"
	case want > 0 && want > most:
		return most, fmt.Sprintf("-j %d capped: %d candidates and the baseline", want, candidates)
	case want > 0:
		return want, "-j"
	}
	n := max(1, m.CPUs-1)
	why := fmt.Sprintf("auto: %d CPUs", m.CPUs)
	if m.CPUs >= 2 && n < 2 && !goTest(test) {
		n = 2
		why += ", 2 for a test command other than go test"
	}
	if m.MemAvail > 0 {
		if byMem := max(1, int(m.MemAvail/memPerSlot)); byMem < n {
			n = byMem
			why += fmt.Sprintf(", lowered for %s of free memory", gib(m.MemAvail))
		}
	}
	if n > most {
		n = most
		why += fmt.Sprintf(", capped at %d candidates and the baseline", candidates)
	}
	return n, why
}

// goTest reports whether a test command line ("" is the detected default)
// runs go test, which runs packages in parallel itself.
func goTest(test string) bool {
	f := strings.Fields(test)
	return len(f) == 0 || len(f) >= 2 && f[0] == "go" && f[1] == "test"
}

func gib(b uint64) string {
	return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
}
