package machine

import (
	"os"
	"testing"

	"github.com/optimizer-dev/optimizer/proc"
)

func TestMemTotal(t *testing.T) {
	for _, tt := range []struct {
		name, meminfo string
		want          int64
	}{
		{"Total", "MemTotal:       16318480 kB\nMemFree:  1 kB\n", 16318480 << 10},
		{"Missing", "MemFree:  1 kB\n", 0},
		{"Malformed", "MemTotal: lots kB\n", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := memTotal([]byte(tt.meminfo)); got != tt.want {
				t.Errorf("memTotal = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestDefaultMemLimit: each process is capped at half of physical memory,
// except under -race.
func TestDefaultMemLimit(t *testing.T) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil || !proc.CanLimitMemory() {
		if got := DefaultMemLimit("", ""); got != 0 {
			t.Errorf("DefaultMemLimit = %d with no prlimit or /proc/meminfo, want 0", got)
		}
		return
	}
	if got, want := DefaultMemLimit("go test ./...", ""), memTotal(b)/2; got != want || got <= 0 {
		t.Errorf("DefaultMemLimit = %d, want half of MemTotal, %d", got, want)
	}
	for _, cmds := range [][2]string{{"go test -race ./...", ""}, {"", "go test -race -bench ."},
		{"node_modules/.bin/vitest run", ""}, {"pytest", "npx vitest bench --run"}} {
		if got := DefaultMemLimit(cmds[0], cmds[1]); got != 0 {
			t.Errorf("DefaultMemLimit(%q) = %d, want 0 under -race or for a JavaScript tool", cmds, got)
		}
	}
}
