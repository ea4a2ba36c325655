package proc

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// OwnerEnv names the environment variable that tags every process Run
// starts, and everything those start in turn. The tag is the identity of
// the optimizer process that owns them: its PID and start time. Pdeathsig
// kills a child when the optimizer dies, but not the child's children. The
// tag lets the next run find those and kill them (see KillOrphans).
const OwnerEnv = "OPTIMIZER_OWNER"

var (
	ownerOnce sync.Once
	owner     string
)

// ownerTag is OWNER_ENV=PID.START for this process.
func ownerTag() string {
	ownerOnce.Do(func() { owner = identity(os.Getpid()) })
	return OwnerEnv + "=" + owner
}

// identity is "PID.START", START being the process's start time where the
// system says it, so that a reused PID is not taken for its old owner.
func identity(pid int) string {
	return fmt.Sprintf("%d.%s", pid, startTime(pid))
}

// StartTime is the start time of process pid as this package reads it (on
// Linux, clock ticks since boot), or "" where it cannot be read. With the
// PID, it names a process in a way a reused PID cannot fake.
func StartTime(pid int) string { return startTime(pid) }

// Alive reports whether the process with this PID runs. When start is not
// "", it must also be the one that started then (StartTime): a process that
// merely got the same PID later is not it. Where start times cannot be
// read, a PID that exists counts as alive.
func Alive(pid int, start string) bool {
	if pid <= 0 {
		return false
	}
	if !exists(pid) {
		return false
	}
	if start == "" {
		return true
	}
	now := startTime(pid)
	return now == "" || now == start
}

// ownerAlive reports whether the owner named by a tag's value still runs.
func ownerAlive(id string) bool {
	pidText, _, _ := strings.Cut(id, ".")
	pid, err := strconv.Atoi(pidText)
	if err != nil || pid <= 0 {
		return false
	}
	return identity(pid) == id
}

// Tag makes a command that does not go through Run owned like Run's
// children. It runs in its own process group, is killed if the optimizer
// dies (on Linux), and carries the owner tag. For a command made with
// exec.CommandContext, cancelling its context kills the whole group.
// [PipeDelay] then bounds the wait for its pipes, unless the caller set
// Cancel or WaitDelay after calling Tag. Call it before cmd.Start; it keeps
// cmd.Env if set.
func Tag(cmd *exec.Cmd) {
	cmd.SysProcAttr = sysProcAttr()
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, ownerTag())
	if cmd.Cancel != nil {
		cmd.Cancel = func() error {
			killGroup(cmd.Process.Pid, cmd.Process)
			return nil
		}
		if cmd.WaitDelay == 0 {
			cmd.WaitDelay = PipeDelay
		}
	}
}

// Exists reports whether a process with this PID exists, whoever runs it.
func Exists(pid int) bool { return pid > 0 && exists(pid) }
