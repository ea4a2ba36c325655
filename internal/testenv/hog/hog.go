// Package hog starts a busy loop pinned to a CPU, for tests that need a
// contended CPU. It imports nothing of the module, so that a test of a low
// package (proc) can use it without growing its test binary.
package hog

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// Start runs a busy loop pinned to cpu, in its own process group, until
// the test ends. It returns once the loop runs. It skips the test where
// taskset (util-linux) is missing.
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
	// taskset pins itself, then becomes sh, which spins at once: the CPU
	// is contended when Start returns, however late a loaded machine ran it.
	comm := "/proc/" + strconv.Itoa(cmd.Process.Pid) + "/comm"
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if b, err := os.ReadFile(comm); err == nil && string(b) == "sh\n" {
			return
		}
	}
	tb.Fatal("the CPU hog did not start within 10s")
}
