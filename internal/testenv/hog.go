package testenv

import (
	"os/exec"
	"strconv"
	"syscall"
	"testing"
)

// StartHog runs a busy loop pinned to cpu, in its own process group, until
// the test ends. It skips the test where taskset (util-linux) is missing.
func StartHog(tb testing.TB, cpu int) {
	tb.Helper()
	if _, err := exec.LookPath("taskset"); err != nil {
		tb.Skip("taskset (util-linux) is not installed: cannot pin the CPU hog")
	}
	cmd := exec.Command("taskset", "-c", strconv.Itoa(cpu), "sh", "-c", "while :; do :; done")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
}
