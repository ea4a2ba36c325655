//go:build unix && !linux

package proc

import (
	"os"
	"runtime"
	"syscall"
)

// sysProcAttr starts the child in its own process group. Pdeathsig is
// Linux-only, and so is KillOrphans: elsewhere a child can outlive an
// optimizer killed with SIGKILL.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// killGroup sends SIGKILL to process group pgid.
func killGroup(pgid int, _ *os.Process) {
	if pgid <= 0 {
		return // -0 would be this process's own group
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// cpuAllowed reports whether cpu exists; taskset is Linux's, so pinning is
// rarely available here anyway.
func cpuAllowed(cpu int) bool { return cpu < runtime.NumCPU() }

// maxRSS is the peak resident memory of a waited process, in bytes:
// ru_maxrss is in bytes on Darwin and in KiB on the BSDs.
func maxRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) * 1024
}
