package testjudge

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/optimizer-dev/optimizer/excerpt"
)

// BaseError is a job's error when the test command cannot run at base.
// Either the shell could not find or execute it (exit 127 or 126), or it
// exited non-zero having printed nothing that reads like a test run. That
// means nothing on stdout and no test output on stderr, as from a runner
// that is not installed. No candidate can be judged by such a command.
type BaseError struct {
	Exit   int
	Output string // the tail of its output: its stderr, when stdout was empty
}

func (e *BaseError) Error() string {
	why := "the test command cannot run at base"
	switch e.Exit {
	case 127:
		why += " (exit 127: command not found)"
	case 126:
		why += " (exit 126: not executable)"
	default:
		why += fmt.Sprintf(" (exit %d with no output on stdout)", e.Exit)
	}
	if out := strings.TrimSpace(e.Output); out != "" {
		why += "; it says:\n  " + strings.ReplaceAll(out, "\n", "\n  ")
	}
	return why
}

// CannotRun says whether a base run of the test command shows that it could
// not run at all, as opposed to a suite with some failing tests.
func CannotRun(out *Outcome) *BaseError {
	if out.TimedOut || out.Exit == 0 || out.Exit < 0 {
		return nil
	}
	if out.Exit == 127 || out.Exit == 126 || (out.Stdout == 0 && !ranTests(out.Output)) {
		return &BaseError{Exit: out.Exit, Output: excerpt.Tail(excerpt.Strip(out.Output), 20)}
	}
	return nil
}

// testRun matches the lines by which test runners that write to stderr
// (jest, Python's unittest) show that tests ran: a summary, or a verdict.
var testRun = regexp.MustCompile(`(?mi)^\s*(?:tests?:\s.*\d|ran \d+ tests?\b|(?:fail|pass|ok|not ok)\b|--- (?:fail|pass)\b|failed \(|.*\b\d+ (?:passed|failed|passing|failing)\b)`)

// ranTests says whether a command's output shows that tests ran.
func ranTests(output string) bool {
	return testRun.MatchString(excerpt.Strip(output))
}
