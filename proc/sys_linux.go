package proc

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// sysProcAttr starts the child in its own process group, killed with
// SIGKILL if the thread that started it (and so, in practice, the
// optimizer) dies.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup sends SIGKILL to process group pgid. An empty group is not an
// error: it is the usual case after the leader exits.
func killGroup(pgid int, _ *os.Process) {
	if pgid <= 0 {
		return // -0 would be this process's own group
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// cpuAllowed reports whether this process may run on cpu.
func cpuAllowed(cpu int) bool {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return false
	}
	return set.IsSet(cpu)
}

// maxRSS is the peak resident memory of a waited process, in bytes: the
// largest of its own and of the children it waited for (ru_maxrss, in KiB
// on Linux).
func maxRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss * 1024
	}
	return 0
}
