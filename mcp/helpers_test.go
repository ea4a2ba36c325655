package mcp_test

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/client"
	"github.com/optimizer-dev/optimizer/daemon"
	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/mcp"
	"github.com/optimizer-dev/optimizer/testdata"
)

// TestMain runs the tests off the machine's lock and daemon socket.
func TestMain(m *testing.M) { testenv.Main(m) }

// wordsBench is a benchmark of the fixture's words package, added to the
// test repository so that base has a benchmark that does not run sumsq.
const wordsBench = `package words

import "testing"

func BenchmarkCount(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Count("the quick brown fox")
	}
}
`

// newFixtureRepo writes the fixture module, with a benchmark of words
// besides sumsq's, into a new repository, committed on main.
func newFixtureRepo(tb testing.TB) string {
	tb.Helper()
	dir := tb.TempDir()
	if err := testdata.WriteFixture(dir); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "words", "bench_test.go"), []byte(wordsBench), 0o644); err != nil {
		tb.Fatal(err)
	}
	if _, err := testdata.InitRepo(context.Background(), dir); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// demoCandidates are three candidates of the demo set: fast (a winner, as
// a patch), broken (its tests fail) and fast_again (whole files giving
// fast's tree: a duplicate).
func demoCandidates(tb testing.TB) []mcp.Candidate {
	tb.Helper()
	read := func(name string) string {
		b, err := fs.ReadFile(testdata.Demo, name)
		if err != nil {
			tb.Fatal(err)
		}
		return string(b)
	}
	again := read("fast_again/sumsq/sumsq.go")
	return []mcp.Candidate{
		{Name: "fast", Patch: read("fast.patch"), Explanation: "a plain loop with x*x"},
		{Name: "broken", Patch: read("broken.patch")},
		{Name: "fast_again", Files: map[string]*string{"sumsq/sumsq.go": &again}},
	}
}

// smallJob keeps a test's job short: few pairs, a small budget.
var smallJob = mcp.Settings{MinPairs: 3, MaxPairs: 6, BenchBudget: "30s", Timeout: "2m"}

// startDaemon runs a daemon with the default policy on a fresh socket
// until the test ends, and returns a client of it.
func startDaemon(tb testing.TB, mod func(*daemon.Options)) (*daemon.Server, *client.Client) {
	tb.Helper()
	dir, err := os.MkdirTemp("", "omt")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	ready := make(chan struct{})
	opts := daemon.Options{
		Socket:      filepath.Join(dir, "d.sock"),
		StateDB:     filepath.Join(dir, "daemon.db"),
		Slots:       2,
		CPUs:        2,
		MachineLock: filepath.Join(dir, "machine.lock"),
		Ready:       func() { close(ready) },
	}
	if mod != nil {
		mod(&opts)
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := daemon.New(ctx, opts)
	if err != nil {
		tb.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	select {
	case <-ready:
	case err := <-done:
		tb.Fatalf("daemon stopped before it was ready: %v", err)
	}
	tb.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			tb.Errorf("daemon Run: %v", err)
		}
	})
	return srv, client.New(opts.Socket)
}

func runGit(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
