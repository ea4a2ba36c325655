// Package testjudge judges one run of a test command against base's. It
// gives the run's outcome, the failure a candidate's run shows where base's
// passes, and excerpts of the output that explain it. It reads the JUnit
// reports a command other than go test -json writes.
package testjudge

import (
	"fmt"
	"io"
	"strings"

	"github.com/optimizer-dev/optimizer/evaluator/gotest"
)

// Outcome is one run of the test command in one tree.
type Outcome struct {
	Exit     int         `json:"exit"`
	TimedOut bool        `json:"timed_out"`
	Output   string      `json:"output,omitempty"`
	Tests    *gotest.Run `json:"tests,omitempty"`
	Seconds  float64     `json:"seconds"`
	// Stdout counts the bytes the command wrote to stdout: a runner that
	// ran tests prints something there.
	Stdout int64 `json:"stdout_bytes,omitempty"`
	// JUnit says Tests came from the command's JUnit XML reports;
	// NoReport says why a run that should have written them has none.
	JUnit    bool   `json:"junit,omitempty"`
	NoReport string `json:"no_report,omitempty"`
}

// Text is the run's output as a person would read it: go test -json
// decoded, terminal escapes stripped.
func (o *Outcome) Text() string {
	if o.Tests != nil && !o.JUnit {
		return gotest.Decode(o.Output)
	}
	return o.Output
}

// Summary is the run in a few words, for the log and the baseline event.
func (o *Outcome) Summary() string {
	if o.Tests != nil {
		return fmt.Sprintf("%d passed, %d failed, %d skipped in %.1fs", o.Tests.Passed, o.Tests.Failed, o.Tests.Skipped, o.Seconds)
	}
	return fmt.Sprintf("exit %d in %.1fs", o.Exit, o.Seconds)
}

// IsGoTestJSON reports whether a test command line produces test2json events.
func IsGoTestJSON(cmd string) bool {
	f := strings.Fields(cmd)
	return len(f) >= 2 && f[0] == "go" && f[1] == "test" && strings.Contains(cmd, "-json")
}

// Counter counts the bytes written through it, passing them on to W.
type Counter struct {
	W io.Writer
	N int64
}

// An error of W stops only W: the count goes on.
func (c *Counter) Write(p []byte) (int, error) {
	c.N += int64(len(p))
	if c.W != nil {
		if _, err := c.W.Write(p); err != nil {
			c.W = nil
		}
	}
	return len(p), nil
}
