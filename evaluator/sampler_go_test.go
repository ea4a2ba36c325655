package evaluator

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/evaluator/measure"
	"github.com/optimizer-dev/optimizer/internal/testenv"
)

// whoRepo's benchmark writes a line to the file -who names, for every
// process that runs it. The line has its pid, the path it was run as, and
// the inode and modification time of the file it runs.
var whoRepo = map[string]string{
	"go.mod":     "module example.com/who\n\ngo 1.22\n",
	"who/who.go": "package who\n\n// Work sums n values.\nfunc Work(n int) int {\n\ts := 0\n\tfor i := 0; i < n; i++ {\n\t\ts += i ^ n\n\t}\n\treturn s\n}\n",
	"who/who_test.go": `package who

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
)

var (
	sink int
	who  = flag.String("who", "", "append who runs the benchmark here")
)

func BenchmarkWork(b *testing.B) {
	if *who != "" && b.N > 1 {
		var st syscall.Stat_t
		if err := syscall.Stat("/proc/self/exe", &st); err != nil {
			b.Fatal(err)
		}
		f, err := os.OpenFile(*who, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(f, "%d %s %d@%d.%09d %s\n", os.Getpid(), os.Args[0], st.Ino, st.Mtim.Sec, st.Mtim.Nsec, strings.Join(os.Args[1:], " "))
		f.Close()
	}
	for i := 0; i < b.N; i++ {
		sink = Work(64)
	}
}
`,
}

// TestRun_SamplesRunFromOnePath: both sides' samples run from the same
// path, each from a file of its own. So nothing of the process but the
// binary's bytes (and the tree it runs in) tells base from the candidate.
// No side keeps a file whose placement could bias it (docs/measuring.md,
// "Identical binaries, different files"). Such a bias would come from base
// running from TMP/base/PKG.test and the candidate from
// TMP/cand/NAME/PKG.test, the same two files for the whole trial.
func TestRun_SamplesRunFromOnePath(t *testing.T) {
	testenv.Once(t)
	if testing.Short() {
		t.Skip("builds and benchmarks a Go module")
	}
	h := newHarness(t, whoRepo)
	log := filepath.Join(t.TempDir(), "who.log")
	cand := filesCand("faster-named-candidate", map[string]string{"who/who.go": strings.Replace(whoRepo["who/who.go"], "Work(n int) int {\n\ts := 0", "Work(n int) int {\n\ts := 1", 1)})
	opts := Options{Candidates: []candidate.Candidate{cand}, Test: "true", BenchArgs: []string{"-who=" + log},
		MinPairs: 3, MaxPairs: 3, Pin: true, Timeout: 2 * time.Minute, Sandbox: SandboxOff}
	shortSamples(t, 20*time.Millisecond)
	rep, err := h.run(t, context.Background(), 2, opts)
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Candidates[0]; c.Pairs != 3 {
		t.Fatalf("%s: %s in %d pairs (%v), want 3 pairs measured", c.Name, c.Verdict, c.Pairs, c.Failure)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	paths, files := map[string]int{}, map[string]int{}
	samples := 0
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || !strings.Contains(line, "-test.benchmem") {
			continue // calibration, which runs base's binary where it was built
		}
		samples++
		paths[f[1]]++
		files[f[2]]++
	}
	if samples != 6 {
		t.Fatalf("%d sample processes in the log, want 6 (3 pairs):\n%s", samples, b)
	}
	if len(paths) != 1 {
		t.Errorf("samples ran from %d paths, want one for both sides: %v", len(paths), paths)
	}
	if len(files) != samples {
		t.Errorf("%d samples ran %d files (inode.mtime: count), want a new file each: %v", samples, len(files), files)
	}
}

// layoutRepo's benchmark appends a line to the file -who names, for every
// sample process. The line has the size of the environment padding it got,
// and the address of Work's code. It also has what Work(64) returns, which
// tells base from the candidate.
var layoutRepo = map[string]string{
	"go.mod":     whoRepo["go.mod"],
	"who/who.go": whoRepo["who/who.go"],
	"who/who_test.go": `package who

import (
	"flag"
	"fmt"
	"os"
	"reflect"
	"testing"
)

var (
	sink int
	who  = flag.String("who", "", "append what the sample runs with here")
)

func BenchmarkWork(b *testing.B) {
	if *who != "" && b.N > 1 {
		f, err := os.OpenFile(*who, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			b.Fatal(err)
		}
		pad, ok := os.LookupEnv("OPTIMIZER_ENV_PAD")
		fmt.Fprintf(f, "%t %d %x %d\n", ok, len(pad), reflect.ValueOf(Work).Pointer(), Work(64))
		f.Close()
	}
	for i := 0; i < b.N; i++ {
		sink = Work(64)
	}
}
`,
}

// TestRun_PairsRotateLayoutAndEnvironment: both samples of a pair run with
// the same environment padding and in the same code layout. The settings
// take turns across pairs as measure.Setting says. The layout alternates,
// and Work's code is elsewhere in the second one, on both sides. So layout
// and stack alignment are noise that the interval covers, rather than a
// bias of one side (issue 36).
func TestRun_PairsRotateLayoutAndEnvironment(t *testing.T) {
	testenv.Once(t)
	if testing.Short() {
		t.Skip("builds and benchmarks a Go module")
	}
	h := newHarness(t, layoutRepo)
	log := filepath.Join(t.TempDir(), "who.log")
	cand := filesCand("changed", map[string]string{"who/who.go": strings.Replace(whoRepo["who/who.go"], "Work(n int) int {\n\ts := 0", "Work(n int) int {\n\ts := 1", 1)})
	const pairs = 4
	opts := Options{Candidates: []candidate.Candidate{cand}, Test: "true", BenchArgs: []string{"-who=" + log},
		MinPairs: pairs, MaxPairs: pairs, Pin: true, Timeout: 2 * time.Minute, Sandbox: SandboxOff}
	shortSamples(t, 20*time.Millisecond)
	rep, err := h.run(t, context.Background(), 2, opts)
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Candidates[0]; c.Pairs != pairs {
		t.Fatalf("%s: %s in %d pairs (%v), want %d pairs measured", c.Name, c.Verdict, c.Pairs, c.Failure, pairs)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	type sample struct{ pad, addr, work string }
	var samples []sample
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		if len(f) != 4 || f[0] != "true" {
			continue // calibration, which runs without a setting
		}
		samples = append(samples, sample{f[1], f[2], f[3]})
	}
	if len(samples) != 2*pairs {
		t.Fatalf("%d sample processes in the log, want %d (%d pairs):\n%s", len(samples), 2*pairs, pairs, b)
	}
	addr := map[[2]string]string{} // (layout, work) -> Work's address
	for r := range pairs {
		x, y := samples[2*r], samples[2*r+1]
		layout, pad := measure.Setting(r)
		if x.work == y.work {
			t.Errorf("pair %d ran one side twice: %v, %v", r, x, y)
		}
		for _, s := range []sample{x, y} {
			if s.pad != strconv.Itoa(pad) {
				t.Errorf("pair %d: a sample ran with %s bytes of padding, want %d on both sides", r, s.pad, pad)
			}
			k := [2]string{strconv.Itoa(layout), s.work}
			if a, ok := addr[k]; ok && a != s.addr {
				t.Errorf("pair %d: Work at %s, and at %s in another pair of the same layout and side", r, s.addr, a)
			}
			addr[k] = s.addr
		}
	}
	for k, a := range addr {
		if k[0] == "0" && addr[[2]string{"1", k[1]}] == a {
			t.Errorf("Work is at %s in both layouts: the second layout moved nothing", a)
		}
	}
}
