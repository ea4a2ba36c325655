// Package testenv holds what the module's tests share: the switch that turns
// on the long stress, kill and end-to-end tests.
//
// `go test ./...` runs the fast tests, a few minutes on a 2-core machine.
// `.ci/run` sets OPTIMIZER_LONG_TESTS=1, so CI runs every test.
package testenv

import (
	"os"
	"testing"
)

// LongEnv names the environment variable that turns the long tests on.
const LongEnv = "OPTIMIZER_LONG_TESTS"

// Long skips tb unless the long tests are on (OPTIMIZER_LONG_TESTS=1).
// A test that calls it is a stress, kill, load or end-to-end test whose
// run takes tens of seconds or more.
func Long(tb testing.TB) {
	tb.Helper()
	if !LongOn() {
		tb.Skipf("a long test: set %s=1 to run it (.ci/run does)", LongEnv)
	}
}

// LongOn reports whether the long tests are on.
func LongOn() bool { return os.Getenv(LongEnv) == "1" }
