// Package testenv holds what the module's tests share. That is the switch
// that turns on the long stress, kill and end-to-end tests. It is also the
// private environment that keeps each test package off the machine's lock
// and daemon.
//
// `go test ./...` runs the fast tests, a few minutes on a 2-core machine.
// `.ci/run` sets OPTIMIZER_LONG_TESTS=1, so CI runs every test: the long
// end-to-end ones (Once) in its plain pass, the stress, kill and
// concurrency ones (Long) under -race too.
package testenv

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/gitcmd"
)

// LongEnv names the environment variable that turns the long tests on.
const LongEnv = "OPTIMIZER_LONG_TESTS"

// Long skips tb unless the long tests are on (OPTIMIZER_LONG_TESTS=1).
// A test that calls it is a stress, kill, load or concurrency test whose
// run takes tens of seconds or more; an end-to-end test calls Once.
func Long(tb testing.TB) {
	tb.Helper()
	if !LongOn() {
		tb.Skipf("a long test: set %s=1 to run it (.ci/run does)", LongEnv)
	}
}

// LongOn reports whether the long tests are on.
func LongOn() bool { return os.Getenv(LongEnv) == "1" }

// Once is Long for an end-to-end test of behaviour that the race detector
// adds nothing to: a whole job's verdict, a format, a browser page, another
// language's tools. It skips tb under -race too. CI runs such a test once,
// in its plain pass; the stress, kill and concurrency tests call Long and
// run under -race as well.
func Once(tb testing.TB) {
	tb.Helper()
	Long(tb)
	if Race {
		tb.Skip("an end-to-end test that runs once, without -race (.ci/run's plain pass)")
	}
}

// OnceOn reports whether the tests that call Once run: the long tests are
// on and the race detector is off.
func OnceOn() bool { return LongOn() && !Race }

// Runner is what TestMain runs: a *testing.M, or a wrapper of one.
type Runner interface{ Run() int }

// Main runs m's tests hermetically (see Hermetic) and exits with their status.
// A package whose tests can reach the machine lock or a daemon's socket
// calls it from its TestMain.
func Main(m *testing.M) { os.Exit(Hermetic(m).Run()) }

// Hermetic wraps m so that its tests run in a private environment. TMPDIR,
// and with it the machine lock and the default socket, is a fresh directory.
// So are XDG_RUNTIME_DIR and XDG_STATE_HOME, and OPTIMIZER_SOCKET is unset.
// Another optimizer or daemon on the machine then neither waits for the
// tests nor sees them. The directory is removed when the tests end. The
// variables that point git elsewhere (gitcmd.IsRedirecting) are unset too, so
// a test's own git commands stay in the test's repositories.
func Hermetic(m Runner) Runner { return hermetic{m} }

type hermetic struct{ m Runner }

func (h hermetic) Run() int {
	// Short names: a unix socket's path must fit in 108 bytes.
	dir, err := os.MkdirTemp("", "ot")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testenv:", err)
		return 1
	}
	defer removeAll(dir)
	for _, v := range []struct{ env, sub string }{
		{"TMPDIR", "t"}, {"XDG_RUNTIME_DIR", "r"}, {"XDG_STATE_HOME", "s"},
	} {
		d := filepath.Join(dir, v.sub)
		if err := os.Mkdir(d, 0o700); err != nil {
			fmt.Fprintln(os.Stderr, "testenv:", err)
			return 1
		}
		os.Setenv(v.env, d)
	}
	// client.SocketEnv: a socket named by the developer's shell would let
	// a running daemon take the tests' jobs.
	os.Unsetenv("OPTIMIZER_SOCKET")
	// GIT_DIR and the like, set by a hook or a developer's shell, would send
	// a test's direct git commands to another repository.
	unsetRedirecting()
	return h.m.Run()
}

// unsetRedirecting unsets the variables that gitcmd.IsRedirecting names.
func unsetRedirecting() {
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); gitcmd.IsRedirecting(k) {
			os.Unsetenv(k)
		}
	}
}

// removeAll removes dir, read-only parts included (a Go module cache that a
// test filled, a slot a test left read-only).
func removeAll(dir string) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	os.RemoveAll(dir)
}
