package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/optimizer-dev/optimizer/cmd/optimizer/internal/config"
)

// The exit codes, in one place.
const (
	exitOK         = 0
	exitError      = 1
	exitUsage      = 2
	exitRegression = 3
	exitHeadFailed = 4 // optimizer ci: the pull request's head itself failed; run: every candidate failed (--fail-on-failed)
)

var (
	// errRegression is returned, wrapped, when --fail-on-regression is set
	// and some candidate is slower or mixed.
	errRegression = errors.New("regression")
	// errAllFailed is returned, wrapped, when --fail-on-failed is set and
	// every candidate failed.
	errAllFailed = errors.New("every candidate failed")
	// errInterrupted is returned when a signal cut the job short.
	errInterrupted = errors.New("interrupted")
)

// signalError is why a command stopped early: a signal, which sets the exit
// status to 128 plus its number (130 for SIGINT, 143 for SIGTERM), as
// shells do.
type signalError struct{ sig syscall.Signal }

func (e *signalError) Error() string { return "stopped by " + e.sig.String() }

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
	var se *signalError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &se):
		return 128 + int(se.sig)
	case errors.As(err, &ue):
		return exitUsage
	case errors.Is(err, errHeadFailed), errors.Is(err, errAllFailed):
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
	var se *signalError
	if cause := context.Cause(ctx); err != nil && ctx.Err() != nil && errors.As(cause, &se) && !errors.As(err, &se) {
		err = fmt.Errorf("%w (%w)", err, cause)
	}
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
except by 'optimizer apply'. When a daemon answers on its socket (optimizer
daemon; --socket or $OPTIMIZER_SOCKET), run and watch go through it, with the
same output and exit status; --no-daemon runs in this process.

Exit status: 0 done, 1 error, 2 usage, 3 regression (--fail-on-regression),
4 the head failed (optimizer ci) or every candidate failed (--fail-on-failed),
130 and 143 stopped by SIGINT and SIGTERM.

` + benchContract
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
		newOptimizeCmd(stdout, stderr),
		newDemoGeneratorCmd(stdout),
		newMergeCmd(stdout),
		newBenchCmd(stdout, stderr),
		newDaemonCmd(stdout, stderr),
		newMCPCmd(stdout, stderr),
		newJobsCmd(stdout),
		newCancelCmd(stdout),
	)
	root.Version = version()
	root.SuggestionsMinimumDistance = 2
	root.SetVersionTemplate("optimizer {{.Version}}\n")
	setup(root, stdout, stderr)
	addCompletions(root)
	return root
}

// version is the module's version and the commit it was built from, as the
// Go toolchain recorded them.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown version)"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		v += " (" + rev + modified + ")"
	}
	return v + " " + info.GoVersion
}

// setup makes every command print help to stdout, leave error printing to
// run, and turn flag and argument errors into usage errors.
func setup(c *cobra.Command, stdout, stderr io.Writer) {
	c.SetOut(stdout)
	c.SetErr(stderr)
	c.SilenceErrors = true
	c.SilenceUsage = true
	c.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return &usageError{fmt.Errorf("%w%s", err, flagSuggestion(cmd, err))}
	})
	if c.Args != nil {
		args := c.Args
		c.Args = func(cmd *cobra.Command, a []string) error {
			if err := args(cmd, a); err != nil {
				if !cmd.HasParent() && len(a) > 0 {
					if s := cmd.SuggestionsFor(a[0]); len(s) > 0 {
						err = fmt.Errorf("%w: did you mean %q?", err, s[0])
					}
				}
				return &usageError{err}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		setup(sub, stdout, stderr)
	}
}

// flagSuggestion is ": did you mean --NAME?" for an unknown flag that is
// close to one or more of cmd's flags, best first ("--A or --B"), or "".
func flagSuggestion(cmd *cobra.Command, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return ""
	}
	near := config.ClosestFlags(cmd.Flags(), name)
	if len(near) == 0 {
		return ""
	}
	return ": did you mean --" + strings.Join(near, " or --") + "?"
}
