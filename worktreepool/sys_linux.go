package worktreepool

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// sysProcAttr starts git in its own process group, killed if the optimizer
// dies.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killStray kills every process whose environment carries the slot's tag
// (see Slot.Env): what a test left running in the background, or, after
// the optimizer was killed, what its children started. A process that only
// happens to run in the slot, such as a user's shell, is left alone. It
// returns how many it killed.
func killStray(dir string) int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	tag := []byte("\x00" + SlotEnv + "=" + dir + "\x00")
	self := os.Getpid()
	n := 0
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(append([]byte{0}, env...), tag) {
			continue
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	return n
}
