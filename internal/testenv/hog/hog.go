// Package hog starts a busy loop pinned to a CPU, for tests that need a
// contended CPU. It imports nothing of the module, so that a test of a low
// package (proc) can use it without growing its test binary.
package hog

import (
	"os/exec"
	"strconv"
	"syscall"
	"testing"
)

// Start runs a busy loop pinned to cpu, in its own process group, until
// the test ends. It skips the test where taskset (util-linux) is missing.
func Start(tb testing.TB, cpu int) {
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
