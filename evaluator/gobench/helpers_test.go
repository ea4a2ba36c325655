package gobench

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// TestMain makes the go commands that the tests start see only the module
// at hand: no workspace, no toolchain switch, no network, no inherited flags.
func TestMain(m *testing.M) {
	for k, v := range map[string]string{"GOWORK": "off", "GOTOOLCHAIN": "local", "GOPROXY": "off", "GOFLAGS": ""} {
		os.Setenv(k, v)
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// needGo skips tb when the go command is not at hand or tests are short.
func needGo(tb testing.TB) {
	tb.Helper()
	if testing.Short() {
		tb.Skip("runs the go command")
	}
	if _, err := exec.LookPath("go"); err != nil {
		tb.Skip("no go command")
	}
}

// newModule writes files (slash paths to contents) into a new temporary
// directory and returns it.
func newModule(tb testing.TB, files map[string]string) string {
	tb.Helper()
	dir := tb.TempDir()
	if err := writeFiles(dir, files); err != nil {
		tb.Fatal(err)
	}
	return dir
}

func writeFiles(dir string, files map[string]string) error {
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// benchModule is a module whose package bench has one benchmark per kind of
// outcome. Its test binary is built once per test binary (testBinary).
var benchModule = map[string]string{
	"go.mod":         "module example.com/m\n\ngo 1.22\n",
	"bench/bench.go": "package bench\n\nfunc Make(n int) []int { return make([]int, n) }\n",
	"bench/bench_test.go": `package bench

import (
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"
)

var sink []int

func BenchmarkAlloc(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink = Make(100)
	}
}

func BenchmarkSizes(b *testing.B) {
	for _, n := range []int{10, 10000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sink = Make(n)
			}
			b.ReportMetric(float64(n), "MB/s")
		})
	}
}

// BenchmarkSpan has a tiny and a huge sub-benchmark, whose names end in
// digits as GOMAXPROCS suffixes do.
func BenchmarkSpan(b *testing.B) {
	for _, n := range []int{1, 1000000} {
		b.Run(fmt.Sprintf("size-%d", n), func(b *testing.B) {
			s := 0
			for i := 0; i < b.N; i++ {
				for j := 0; j < n; j++ {
					s += j ^ i
				}
			}
			sinkInt = s
		})
	}
}

var sinkInt int

// BenchmarkData skips unless -datadir is given, as benchmarks that need
// data files do.
func BenchmarkData(b *testing.B) {
	if *dataDir == "" {
		b.Skip("no data files: run with -datadir DIR")
	}
	for i := 0; i < b.N; i++ {
		sink = Make(1)
	}
}

var dataDir = flag.String("datadir", "", "where the data files are")

func BenchmarkSleep(b *testing.B) {
	for i := 0; i < b.N; i++ {
		time.Sleep(10 * time.Minute)
	}
}

func BenchmarkFail(b *testing.B) { b.Fatal("boom at the bench") }

func BenchmarkSkip(b *testing.B) { b.Skip("not here") }

// BenchmarkNoisy prints 1.5 MB before each sub-benchmark, so that the
// first result line sits in the middle of far more output than proc keeps.
func BenchmarkNoisy(b *testing.B) {
	noise := strings.Repeat("noise noise noise noise noise noise noise noise\n", 1<<15)
	for _, name := range []string{"first", "second"} {
		fmt.Print(noise)
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sink = Make(1)
			}
		})
	}
}
`,
}

var (
	binDir  string
	binOnce sync.Once
	binErr  error
)

// testBinary returns benchModule's directory and the test binary of its
// package bench, building it once.
func testBinary(t *testing.T) (bin, dir string) {
	t.Helper()
	needGo(t)
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "gobench-"); binErr != nil {
			return
		}
		if binErr = writeFiles(binDir, benchModule); binErr != nil {
			return
		}
		binErr = Build(context.Background(), binDir, "example.com/m/bench", filepath.Join(binDir, "bench.test"), nil)
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return filepath.Join(binDir, "bench.test"), filepath.Join(binDir, "bench")
}
