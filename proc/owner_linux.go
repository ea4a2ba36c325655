package proc

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// startTime is field 22 of /proc/PID/stat, the start time in clock ticks
// since boot, or "" when the process does not exist.
func startTime(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return ""
	}
	return f[19]
}

// KillOrphans kills every process tagged by an optimizer that is no longer
// running, and every process in a run's cgroup whose optimizer is gone.
// These are what a killed run's children started, which outlived them. It
// returns how many processes and cgroups it killed. Processes of live
// optimizers are left alone.
func KillOrphans() int {
	key := []byte("\x00" + OwnerEnv + "=")
	return killStaleCgroups() + killWhere(func(env []byte) bool {
		i := bytes.Index(env, key)
		if i < 0 {
			return false
		}
		id, _, _ := bytes.Cut(env[i+len(key):], []byte{0})
		return !ownerAlive(string(id))
	})
}

// KillTagged kills every process (but this one) whose environment holds
// the variable name set to exactly value, such as a slot's tag. Such a
// process is what a test left running in the background, or what a killed
// optimizer's children started. It returns how many it killed.
func KillTagged(name, value string) int {
	tag := []byte("\x00" + name + "=" + value + "\x00")
	return killWhere(func(env []byte) bool { return bytes.Contains(env, tag) })
}

// killWhere sends SIGKILL to every process but this one whose environment,
// NUL-separated and with a leading and a trailing NUL, match accepts. It
// returns how many it killed.
func killWhere(match func(env []byte) bool) int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	self := os.Getpid()
	n := 0
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		env = append(append([]byte{0}, env...), 0)
		if !match(env) {
			continue
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	return n
}
