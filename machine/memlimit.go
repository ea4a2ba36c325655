package machine

import (
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/optimizer-dev/optimizer/proc"
)

// DefaultMemLimit is Options.MemLimit when the user gives none: half of
// physical memory. Then one runaway test process (one that allocates 20 GB)
// fails alone instead of taking the machine. A normal one, and the slots
// beside it, have room. It is 0, no cap, in three cases. One is when the
// test or bench command says -race, whose shadow memory reserves terabytes
// of address space. Another is when it runs a JavaScript tool, whose
// WebAssembly memories reserve 10 GB of address space each. Under a 12 GB
// cap, vitest failed "Cannot allocate Wasm memory". The last is where
// physical memory is unknown, or there is no prlimit to apply a cap.
func DefaultMemLimit(test, bench string) int64 {
	if strings.Contains(test, "-race") || strings.Contains(bench, "-race") || !proc.CanLimitMemory() ||
		runsJS(test) || runsJS(bench) {
		return 0
	}
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	return memTotal(b) / 2
}

// memTotal parses the MemTotal line of /proc/meminfo, in bytes; 0 when it
// is missing or malformed.
func memTotal(meminfo []byte) int64 {
	for line := range strings.Lines(string(meminfo)) {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// runsJS says whether a command line names a JavaScript runtime or tool.
func runsJS(cmd string) bool {
	for _, f := range strings.Fields(cmd) {
		switch path.Base(strings.Trim(f, `"'();&|`)) {
		case "node", "npx", "npm", "yarn", "pnpm", "bun", "deno", "vitest", "jest":
			return true
		}
	}
	return false
}
