package worktreepool

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// flockHolders reads /proc/locks for the flocks on the file at path: the
// PID that took each, and whether it is exclusive. The ok result is false
// when the kernel's list cannot be read. A file that does not exist has no
// holders.
func flockHolders(path string) (holders map[int]bool, ok bool) {
	holders = map[int]bool{}
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return holders, true
	}
	data, err := os.ReadFile("/proc/locks")
	if err != nil {
		return holders, false
	}
	id := fmt.Sprintf("%02x:%02x:%d", unix.Major(uint64(st.Dev)), unix.Minor(uint64(st.Dev)), st.Ino)
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) > 1 && f[1] == "->" {
			continue // a blocked request, not a holder
		}
		// 1: FLOCK  ADVISORY  WRITE 18593 fe:00:9986361 0 EOF
		if len(f) < 6 || f[1] != "FLOCK" || f[5] != id {
			continue
		}
		pid, err := strconv.Atoi(f[4])
		if err != nil || pid <= 0 {
			continue
		}
		holders[pid] = holders[pid] || f[3] == "WRITE"
	}
	return holders, true
}
