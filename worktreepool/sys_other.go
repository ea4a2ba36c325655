//go:build unix && !linux

package worktreepool

import "syscall"

// sysProcAttr starts git in its own process group.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// killStray finds no strays outside Linux: there is no /proc to read the
// slot's tag from. Process groups are still killed as they end.
func killStray(string) int { return 0 }
