//go:build !unix

package proc

import (
	"os"
	"runtime"
	"syscall"
)

// sysProcAttr has no process groups to offer outside Unix.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// killGroup kills only the process itself: there is no group to kill.
func killGroup(_ int, p *os.Process) {
	if p != nil {
		_ = p.Kill()
	}
}

func cpuAllowed(cpu int) bool { return cpu < runtime.NumCPU() }

// maxRSS is 0: there is no rusage to read outside Unix.
func maxRSS(*os.ProcessState) int64 { return 0 }
