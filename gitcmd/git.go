// Package gitcmd runs the git command line. Every git command the optimizer
// runs goes through [Run], so that all of them are owned, cancelled and
// configured the same way.
//
// # What flows through it
//
// A [Cmd] goes in: git's arguments, a directory, optional stdin and extra
// environment. Its stdout comes out whole, or an [*Error] that carries what
// git wrote to stderr.
//
// # Policy
//
// Every command:
//   - runs in its own process group, tagged as this optimizer's child and
//     killed with it ([proc.Tag]); cancelling ctx kills the whole group;
//   - runs with this process's environment minus the variables that would
//     point git at another repository (GIT_DIR, GIT_WORK_TREE, …), with no
//     terminal prompt (GIT_TERMINAL_PROMPT=0), then Cmd.Env;
//   - runs no hooks (core.hooksPath=/dev/null) and starts no fsmonitor
//     daemon (core.fsmonitor=false): a daemon would carry the owner tag and
//     be killed as an orphan later.
//
// A command with [Cmd.ReadOnly] also takes no optional locks
// (GIT_OPTIONAL_LOCKS=0), so reading a tree the optimizer does not own, the
// user's, never refreshes or locks its index.
package gitcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/optimizer-dev/optimizer/proc"
)

// config comes before every command's arguments.
var config = []string{"-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"}

// redirecting are the environment variables that would point git at
// another repository, index or object store than the one a command names.
var redirecting = []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_PREFIX"}

// IsRedirecting reports whether the environment variable name points git at
// another repository, so that Run drops it. Tests unset such variables too.
func IsRedirecting(name string) bool { return slices.Contains(redirecting, name) }

// Cmd is one git command.
type Cmd struct {
	Dir      string    // where git runs; "" is this process's directory
	Args     []string  // git's arguments, without "git"
	Stdin    io.Reader // nil reads nothing
	Env      []string  // added after the policy's environment, so it may set GIT_DIR and the like
	ReadOnly bool      // take no optional locks: the tree is not the optimizer's
}

// Error is a git command that failed, with what git said.
type Error struct {
	Args   []string
	Err    error // from exec, or ctx's error when it was cancelled
	Stderr string
}

func (e *Error) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("git %s: %s", subcommand(e.Args), msg)
}

func (e *Error) Unwrap() error { return e.Err }

// ExitCode is git's exit status, or -1 when it did not exit by itself.
func (e *Error) ExitCode() int {
	var ee *exec.ExitError
	if !errors.As(e.Err, &ee) {
		return -1
	}
	return ee.ExitCode()
}

// subcommand is the first argument that is not an option or an option's
// value, as far as config's and the callers' options go.
func subcommand(args []string) string {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-c" || a == "-C":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a
		}
	}
	return strings.Join(args, " ")
}

// Run runs c and returns its stdout. A failure is an *Error; when ctx was
// cancelled it wraps ctx.Err().
func Run(ctx context.Context, c Cmd) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append(slices.Clip(config), c.Args...)...)
	cmd.Dir = c.Dir
	cmd.Env = environ(c.ReadOnly, c.Env)
	cmd.Stdin = c.Stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	proc.Tag(cmd)
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%v)", ctx.Err(), err)
		}
		return stdout.Bytes(), &Error{Args: c.Args, Err: err, Stderr: stderr.String()}
	}
	return stdout.Bytes(), nil
}

// environ is the environment of a git command under the policy, extra
// last.
func environ(readOnly bool, extra []string) []string {
	env := make([]string, 0, len(os.Environ())+3+len(extra))
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !IsRedirecting(k) {
			env = append(env, kv)
		}
	}
	env = append(env, "GIT_TERMINAL_PROMPT=0")
	if readOnly {
		env = append(env, "GIT_OPTIONAL_LOCKS=0")
	}
	return append(env, extra...)
}
