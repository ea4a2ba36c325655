package worktreepool

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// gitConfig is passed to every git command: no user hooks run in slots, and
// no fsmonitor daemon is started for them.
var gitConfig = []string{"-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"}

// gitWaitDelay bounds the wait for git's pipes after it is killed.
const gitWaitDelay = 2 * time.Second

// GitError is a git command that failed, with what git said.
type GitError struct {
	Args   []string
	Err    error
	Stderr string
}

func (e *GitError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("git %s: %s", e.Args[0], msg)
}

func (e *GitError) Unwrap() error { return e.Err }

// git runs one git command in its own process group, killed whole when ctx is
// done, and returns its stdout.
func git(ctx context.Context, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append(append([]string(nil), gitConfig...), args...)...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	cmd.Stdin = stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = sysProcAttr()
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = gitWaitDelay
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%v)", ctx.Err(), err)
		}
		return stdout.Bytes(), &GitError{Args: args, Err: err, Stderr: stderr.String()}
	}
	return stdout.Bytes(), nil
}

// inRepo runs git against the user's repository at root. Only worktree
// bookkeeping goes through it.
func inRepo(ctx context.Context, root string, args ...string) ([]byte, error) {
	return git(ctx, nil, append([]string{"-C", root}, args...)...)
}

// commonDir returns the absolute git common dir of the repository at root.
func commonDir(ctx context.Context, root string) (string, error) {
	out, err := inRepo(ctx, root, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return "", fmt.Errorf("not a git repository: %s: %w", root, err)
	}
	return strings.TrimSpace(string(out)), nil
}
