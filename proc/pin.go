package proc

import (
	"os/exec"
	"strconv"
	"sync"
)

var tasksetPath = sync.OnceValue(func() string {
	p, err := exec.LookPath("taskset")
	if err != nil {
		return ""
	}
	return p
})

// CanPin reports whether Run can pin a process to cpu: taskset exists and
// cpu is one this process may run on.
func CanPin(cpu int) bool {
	return cpu >= 0 && tasksetPath() != "" && cpuAllowed(cpu)
}

// pinArgs prefixes args with taskset when cpu >= 0 and pinning is possible.
// taskset execs the command, so the PID and process group stay the same.
func pinArgs(args []string, cpu int) ([]string, bool) {
	if !CanPin(cpu) {
		return args, false
	}
	return append([]string{tasksetPath(), "-c", strconv.Itoa(cpu)}, args...), true
}
