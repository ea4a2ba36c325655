package evaluator

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/internal/testenv"
)

// whoRepo's benchmark writes, for every process that runs it, a line to
// the file -who names: its pid, the path it was run as, and the inode and
// modification time of the file it runs.
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
// path, each from a file of its own, so that nothing of the process but the
// binary's bytes (and the tree it runs in) tells base from the candidate,
// and no side keeps a file whose placement could bias it
// (docs/measuring.md, "Identical binaries, different files"). Before, base
// ran from TMP/base/PKG.test and the candidate from TMP/cand/NAME/PKG.test,
// the same two files for the whole trial.
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
