package main

import (
	"errors"

	"github.com/optimizer-dev/optimizer/report"
)

// errHeadFailed is returned, wrapped, by optimizer ci when the pull
// request's head itself failed: it does not apply, build or pass its tests,
// or its benchmarks error. It exits 4, apart from a regression's 3.
var errHeadFailed = errors.New("the head failed")

// gateErr is the gate as run's error, nil when it passed: its message is
// the gate's line, and it wraps errHeadFailed or errRegression for the
// exit code.
func gateErr(g report.Gate) error {
	switch {
	case g.Failed != "":
		return &gateError{line: g.Line(), kind: errHeadFailed}
	case len(g.Reasons) > 0:
		return &gateError{line: g.Line(), kind: errRegression}
	}
	return nil
}

// gateError is a failed gate: its line, and the sentinel that picks the
// exit code.
type gateError struct {
	line string
	kind error
}

func (e *gateError) Error() string { return e.line }
func (e *gateError) Unwrap() error { return e.kind }
