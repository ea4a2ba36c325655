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
// running: what a killed run's children started, which outlived them. It
// returns how many it killed. Processes of live optimizers are left alone.
func KillOrphans() int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	key := []byte("\x00" + OwnerEnv + "=")
	n := 0
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		env = append([]byte{0}, env...)
		i := bytes.Index(env, key)
		if i < 0 {
			continue
		}
		id, _, _ := bytes.Cut(env[i+len(key):], []byte{0})
		if ownerAlive(string(id)) {
			continue
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	return n
}
