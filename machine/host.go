package machine

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"github.com/optimizer-dev/optimizer/proc"
	"github.com/optimizer-dev/optimizer/store"
)

// Host names this machine as benchmark samples record it: hostname, CPU
// model and kernel release. It adds the version of the go command that
// builds the benchmarks, or this program's own Go version when there is
// none. Samples of one job must all share it (store.ErrMixedHosts).
func Host(ctx context.Context) store.Host {
	h := store.Host{CPU: CPUModel(), Kernel: kernelRelease(), Go: goVersion(ctx)}
	h.Name, _ = os.Hostname()
	return h
}

// CPUModel is /proc/cpuinfo's first "model name" (Linux), or GOARCH.
func CPUModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

// kernelRelease is the running kernel's release (Linux), or GOOS.
func kernelRelease() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return runtime.GOOS
	}
	return strings.TrimSpace(string(b))
}

func goVersion(ctx context.Context) string {
	cmd := exec.CommandContext(ctx, "go", "env", "GOVERSION")
	proc.Tag(cmd)
	out, err := cmd.Output()
	if v := strings.TrimSpace(string(out)); err == nil && v != "" {
		return v
	}
	return runtime.Version()
}

// Load is /proc/loadavg's 1, 5 and 15-minute load averages, such as
// "1.25 2.31 3.47", or "unknown" off Linux.
func Load() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
