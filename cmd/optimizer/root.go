package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// The exit codes, in one place.
const (
	exitOK         = 0
	exitError      = 1
	exitUsage      = 2
	exitRegression = 3
	exitHeadFailed = 4 // optimizer ci: the pull request's head itself failed
)

var (
	// errRegression is returned, wrapped, when --fail-on-regression is set
	// and some candidate is slower or mixed.
	errRegression = errors.New("regression")
	// errInterrupted is returned when a signal cut the job short.
	errInterrupted = errors.New("interrupted")
)

// usageError is a mistake in how optimizer was called: a bad flag, value,
// argument or configuration key. It exits with status 2.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// exitCode maps an error returned by run to the process's exit status.
func exitCode(err error) int {
	var ue *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue):
		return exitUsage
	case errors.Is(err, errHeadFailed):
		return exitHeadFailed
	case errors.Is(err, errRegression):
		return exitRegression
	default:
		return exitError
	}
}

// run is the whole program: it parses args, runs the command, prints any
// error to stderr and returns it. Tests call it directly.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	root := newRootCmd(stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "optimizer: %v\n", err)
		var ue *usageError
		if errors.As(err, &ue) {
			fmt.Fprintln(stderr, "Run 'optimizer --help' for usage.")
		}
	}
	return err
}

// newRootCmd builds the command tree. The root command is run, so that
// `optimizer -j 4 --candidates DIR` works without naming it.
func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := newRunCmd("optimizer", stdout, stderr)
	root.Short = "Find the candidate change that is correct and really faster, with evidence"
	root.Long = `optimizer evaluates candidate changes to a git repository against a base commit.
Each candidate's tests run at the same time in a pool of git worktrees; the
survivors are benchmarked one at a time against base; the winner is profiled.
Everything is recorded in SQLite. The repository itself is never touched,
except by 'optimizer apply'.

Exit status: 0 done, 1 error, 2 usage, 3 regression (--fail-on-regression),
4 the head failed (optimizer ci).`
	root.AddCommand(
		newRunCmd("run", stdout, stderr),
		newDemoCmd(stdout, stderr),
		newHistoryCmd(stdout),
		newShowCmd(stdout),
		newReportCmd(stdout),
		newApplyCmd(stdout, stderr),
		newGCCmd(stdout),
		newWatchCmd(stdout, stderr),
		newCICmd(stdout, stderr),
	)
	setup(root, stdout, stderr)
	addCompletions(root)
	return root
}

// setup makes every command print help to stdout, leave error printing to
// run, and turn flag and argument errors into usage errors.
func setup(c *cobra.Command, stdout, stderr io.Writer) {
	c.SetOut(stdout)
	c.SetErr(stderr)
	c.SilenceErrors = true
	c.SilenceUsage = true
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	if c.Args != nil {
		args := c.Args
		c.Args = func(cmd *cobra.Command, a []string) error {
			if err := args(cmd, a); err != nil {
				return &usageError{err}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		setup(sub, stdout, stderr)
	}
}
