package machine

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestLoad: on Linux, three load averages that parse as numbers.
func TestLoad(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/loadavg is Linux's")
	}
	f := strings.Fields(Load())
	if len(f) != 3 {
		t.Fatalf("Load() = %q: want three fields", Load())
	}
	for _, s := range f {
		if v, err := strconv.ParseFloat(s, 64); err != nil || v < 0 {
			t.Errorf("Load() = %q: %q is not a load average", Load(), s)
		}
	}
}
