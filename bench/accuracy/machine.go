package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	host "github.com/optimizer-dev/optimizer/machine"
	"github.com/optimizer-dev/optimizer/proc"
)

// A machine is what the report says about where and when it measured.
type machine struct {
	Time     time.Time
	CPU      string // model name from /proc/cpuinfo
	Cores    int
	Go       string
	Kernel   string
	Load     string // /proc/loadavg: 1, 5, 15 minutes
	Pressure string // /proc/pressure/cpu "some" line: share of time tasks waited for a CPU
	CanPin   bool   // benchmark processes can be pinned to the last CPU
}

func sampleMachine() machine {
	return machine{
		Time:     time.Now(),
		CPU:      host.CPUModel(),
		Cores:    runtime.NumCPU(),
		Go:       runtime.Version(),
		Kernel:   firstLine("/proc/sys/kernel/osrelease"),
		Load:     host.Load(),
		Pressure: strings.TrimPrefix(firstLine("/proc/pressure/cpu"), "some "),
		CanPin:   runtime.NumCPU() > 1 && proc.CanPin(runtime.NumCPU()-1),
	}
}

func firstLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "unknown"
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(line)
}

// measurementFile is written next to the store of a run, so that a later
// -from can say where and when the samples were taken.
const measurementFile = "measurement.json"

// A measurement is one run of the harness that measured: its command and
// the machine at its start and end.
type measurement struct {
	Store      string `json:"-"`
	Command    string
	Start, End machine
}

func (m measurement) write(dir string) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, measurementFile), b, 0o644)
}

// readMeasurement reads the measurement next to a store, or returns one
// with only the store's path if there is none.
func readMeasurement(store string) measurement {
	m := measurement{Store: store}
	if b, err := os.ReadFile(filepath.Join(filepath.Dir(store), measurementFile)); err == nil {
		_ = json.Unmarshal(b, &m) // a damaged file says nothing, like a missing one
		m.Store = store
	}
	return m
}
