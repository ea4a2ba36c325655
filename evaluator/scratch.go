package evaluator

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// scratchPrefix starts the name of a job's scratch directory in the system's
// temporary directory: optimizer-job-PID-RANDOM. It holds the job's test
// binaries, and Run removes it; the PID lets a later process remove the
// scratch of a run that was killed.
const scratchPrefix = "optimizer-job-"

// scratchPrefixes are the scratch directories a run makes in the system's
// temporary directory, each named PREFIX-PID-RANDOM: the job's, and the
// candidate package's for content ids.
var scratchPrefixes = []string{scratchPrefix, "optimizer-treeid-"}

// RemoveStaleScratch removes the scratch directories of runs whose process
// is dead, as alive says, and returns how many it removed.
func RemoveStaleScratch(alive func(pid int) bool) int {
	n := 0
	for _, prefix := range scratchPrefixes {
		dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), prefix+"*"))
		for _, d := range dirs {
			pidText, _, ok := strings.Cut(strings.TrimPrefix(filepath.Base(d), prefix), "-")
			pid, err := strconv.Atoi(pidText)
			if !ok || err != nil || alive(pid) {
				continue
			}
			if os.RemoveAll(d) == nil {
				n++
			}
		}
	}
	return n
}
