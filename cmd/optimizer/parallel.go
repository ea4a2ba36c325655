package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// memPerSlot is the free memory that auto parallelism wants for each slot:
// a go test of a mid-sized module, its compiler and linker included.
const memPerSlot = 1536 << 20

// parallelAuto is the value of -j when it was not given: CPUs-1, at least 1
// (at least 2 on two or more CPUs for a test command other than go test),
// lowered when free memory is short. See slots.
const parallelAuto parallelFlag = -1

// parallelFlag is the value of -j: auto, or a number of slots (0 means one
// per candidate).
type parallelFlag int

func (p *parallelFlag) String() string {
	if *p == parallelAuto {
		return "auto"
	}
	return strconv.Itoa(int(*p))
}

func (p *parallelFlag) Set(s string) error {
	if s == "auto" {
		*p = parallelAuto
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return fmt.Errorf("want auto or a number of slots >= 0")
	}
	*p = parallelFlag(n)
	return nil
}

func (p *parallelFlag) Type() string { return "N" }

// MarshalJSON records auto as "auto" in the job's configuration.
func (p parallelFlag) MarshalJSON() ([]byte, error) {
	return []byte(strconv.Quote(p.String())), nil
}

// machine is what auto parallelism looks at.
type machine struct {
	CPUs     int
	MemAvail uint64 // bytes; 0 when unknown
}

// thisMachine reads the CPU count and MemAvailable from /proc/meminfo.
func thisMachine() machine {
	m := machine{CPUs: runtime.NumCPU()}
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

// slots decides the effective number of slots for a job of n candidates
// whose test command is test ("" is the detected default), and says why.
// The baseline's tests run beside the candidates', so more than n+1 slots
// can never all be busy: the rest would be made for nothing.
//
// Auto is CPUs-1. go test runs packages in parallel itself, and each slot
// compiles the module anew: on 2 CPUs a second slot showed no gain for Go
// jobs (paired ratios around 1.00x, docs/speed.md) and doubles their
// memory, so they keep one. A test command that is not go test, often
// single-threaded, ran 1.75x faster with two slots there, so it gets at
// least 2 on two or more CPUs.
func slots(p parallelFlag, candidates int, test string, m machine) (int, string) {
	most := candidates + 1
	switch {
	case p == 0:
		return max(1, candidates), "one per candidate"
	case p > 0 && int(p) > most:
		return most, fmt.Sprintf("-j %d capped: %d candidates and the baseline", p, candidates)
	case p > 0:
		return int(p), "-j"
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

// UnmarshalJSON reads what MarshalJSON wrote.
func (p *parallelFlag) UnmarshalJSON(b []byte) error {
	s, err := strconv.Unquote(string(b))
	if err != nil {
		s = string(b)
	}
	return p.Set(s)
}

// warnOversubscribed warns when there are more slots than CPUs: tests then
// share CPUs, and --timeout means less. The evaluator re-runs a test that
// times out alone before it fails its candidate.
func warnOversubscribed(w io.Writer, slots, cpus int) {
	if slots > cpus {
		fmt.Fprintf(w, "optimizer: warning: %d slots on %d CPUs: tests share CPUs, so --timeout means less; a test that times out is re-run alone before its candidate fails\n", slots, cpus)
	}
}
