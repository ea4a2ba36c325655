package proc

import (
	"os/exec"
	"strconv"
	"sync"
)

var prlimitPath = sync.OnceValue(func() string {
	p, err := exec.LookPath("prlimit")
	if err != nil {
		return ""
	}
	return p
})

// CanLimitMemory reports whether Run can cap a process's memory: prlimit
// (util-linux) exists.
func CanLimitMemory() bool { return prlimitPath() != "" }

// limitArgs prefixes args with prlimit --as when limit > 0 and prlimit
// exists. The limit is on each process's address space (RLIMIT_AS), which
// its children inherit one by one. So it bounds every process of a test
// run, not their sum. prlimit execs the command, so the PID and process
// group stay the same.
func limitArgs(args []string, limit int64) ([]string, bool) {
	if limit <= 0 || !CanLimitMemory() {
		return args, false
	}
	return append([]string{prlimitPath(), "--as=" + strconv.FormatInt(limit, 10), "--"}, args...), true
}
