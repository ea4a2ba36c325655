package daemon

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/client"
	"github.com/optimizer-dev/optimizer/mcp"
)

// newTestRepo makes a git repository holding files, committed on main.
func newTestRepo(tb testing.TB, files map[string]string) string {
	tb.Helper()
	dir := tb.TempDir()
	for p, s := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	runGit(tb, dir, "init", "-q", "-b", "main")
	runGit(tb, dir, "add", "-A")
	runGit(tb, dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base")
	return dir
}

func runGit(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// shellRepo: the test passes while the file ok says yes.
func shellRepo(tb testing.TB) string {
	return newTestRepo(tb, map[string]string{"ok": "yes\n", "lib.txt": "one\n"})
}

const shellTest = "grep -q yes ok"

// startServer runs a daemon on a fresh socket until the test ends.
func startServer(tb testing.TB, mod func(*Options)) (*Server, *client.Client) {
	tb.Helper()
	sockDir, err := os.MkdirTemp("", "odt")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(sockDir) })
	opts := Options{
		Socket:  filepath.Join(sockDir, "d.sock"),
		StateDB: filepath.Join(tb.TempDir(), "daemon.db"),
		Slots:   2,
		CPUs:    2,
		// Other optimizer tests on this machine benchmark under the
		// default lock: this daemon's order is its own.
		MachineLock: filepath.Join(sockDir, "machine.lock"),
		MCPJobs:     func(api http.Handler) mcp.Jobs { return client.NewInProcess(api) },
	}
	if mod != nil {
		mod(&opts)
	}
	srv, stop := runServer(tb, opts)
	tb.Cleanup(func() {
		if err := stop(); err != nil {
			tb.Errorf("daemon Run: %v", err)
		}
	})
	return srv, client.New(opts.Socket)
}

// runServer starts a daemon with opts and waits until it is ready; stop
// ends it and returns what Run returned.
func runServer(tb testing.TB, opts Options) (srv *Server, stop func() error) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := New(ctx, opts)
	if err != nil {
		cancel()
		tb.Fatal(err)
	}
	ready := make(chan struct{})
	srv.opts.Ready = func() { close(ready) }
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	select {
	case <-ready:
	case err := <-done:
		cancel()
		tb.Fatalf("daemon stopped before it was ready: %v", err)
	}
	return srv, func() error { cancel(); return <-done }
}

// inline is an inline candidate that writes files.
func inline(tb testing.TB, name string, files map[string]string) json.RawMessage {
	tb.Helper()
	b, err := json.Marshal(map[string]any{"name": name, "files": files})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// waitEnded streams job id's events until it ends, and returns them.
func waitEnded(tb testing.TB, c *client.Client, id string) []api.Event {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var evs []api.Event
	err := c.Events(ctx, id, 0, func(e api.Event) error {
		evs = append(evs, e)
		return nil
	})
	if err != nil {
		tb.Fatalf("events of %s: %v", id, err)
	}
	return evs
}

// allowUnsandboxed starts a daemon as --allow-unsandboxed does: for tests
// whose shell commands need nothing of the sandbox.
func allowUnsandboxed(o *Options) { o.Policy.AllowUnsandboxed = true }
