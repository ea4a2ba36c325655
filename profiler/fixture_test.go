package profiler

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// The fixture: a module whose base counts pairs in O(n²) and whose winner
// does it in O(n) with a map, in the same file.
const (
	fixtureModule = "example.com/fixture"
	fixtureGoMod  = "module example.com/fixture\n\ngo 1.21\n"
	fixtureBase   = `package fixture

// CountPairs counts the pairs i < j with xs[i]+xs[j] == target.
func CountPairs(xs []int, target int) int {
	n := 0
	for i := range xs {
		for j := i + 1; j < len(xs); j++ {
			if xs[i]+xs[j] == target {
				n++
			}
		}
	}
	return n
}
`
	fixtureWinner = `package fixture

// CountPairs counts the pairs i < j with xs[i]+xs[j] == target.
func CountPairs(xs []int, target int) int {
	seen := make(map[int]int, len(xs))
	n := 0
	for _, x := range xs {
		n += seen[target-x]
		seen[x]++
	}
	return n
}
`
	fixtureTest = `package fixture

import "testing"

var sink int

func BenchmarkCountPairs(b *testing.B) {
	xs := make([]int, 2000)
	for i := range xs {
		xs[i] = i % 97
	}
	for b.Loop() {
		sink = CountPairs(xs, 50)
	}
}

func TestCountPairs(t *testing.T) {
	if got := CountPairs([]int{1, 2, 3, 4}, 5); got != 2 {
		t.Fatalf("CountPairs = %d, want 2", got)
	}
}
`
)

// fixture is the built and profiled fixture module.
type fixture struct {
	root             string // holds base/ and winner/, the "slots"
	baseDir, candDir string
	baseBin, candBin string
	artifacts        string // the raw profiles
	baseCPU, candCPU string
	baseMem, candMem string
}

// newFixture writes the two versions of the module, and builds their test
// binaries with go test -c -trimpath. It captures a CPU and a memory
// profile of each, both at once (on the two CPUs when there are two).
func newFixture(t *testing.T) *fixture {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	f := &fixture{root: t.TempDir(), artifacts: t.TempDir()}
	f.baseDir, f.candDir = filepath.Join(f.root, "base"), filepath.Join(f.root, "winner")
	for dir, src := range map[string]string{f.baseDir: fixtureBase, f.candDir: fixtureWinner} {
		writeFiles(t, dir, map[string]string{"go.mod": fixtureGoMod, "sum.go": src, "sum_test.go": fixtureTest})
	}
	f.baseBin, f.candBin = filepath.Join(f.root, "base.test"), filepath.Join(f.root, "winner.test")
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, b := range []struct{ dir, bin string }{{f.baseDir, f.baseBin}, {f.candDir, f.candBin}} {
		wg.Go(func() {
			cmd := exec.Command("go", "test", "-c", "-trimpath", "-o", b.bin, ".")
			cmd.Dir = b.dir
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[i] = errors.New(string(out))
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatalf("build fixture: %v", err)
		}
	}
	f.baseCPU, f.candCPU = filepath.Join(f.artifacts, "base.pprof"), filepath.Join(f.artifacts, "winner.pprof")
	f.baseMem, f.candMem = filepath.Join(f.artifacts, "base.mem.pprof"), filepath.Join(f.artifacts, "winner.mem.pprof")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// A count of iterations, not a time: on a starved CPU (load 24 on 2)
	// two seconds of wall time gave base's profile a handful of samples,
	// mostly outside CountPairs. Each count is about two seconds of CPU
	// on this machine, however busy it is: base's op takes about 2 ms, the
	// winner's about 50 µs.
	for i, c := range []CaptureOptions{
		{Binary: f.baseBin, Dir: f.baseDir, Out: f.baseCPU, MemOut: f.baseMem, Benchtime: "1000x"},
		{Binary: f.candBin, Dir: f.candDir, Out: f.candCPU, MemOut: f.candMem, Benchtime: "40000x"},
	} {
		c.Bench, c.CPU = "^BenchmarkCountPairs$", pinCPU(i)
		wg.Go(func() { errs[i] = Capture(ctx, c) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatalf("Capture: %v", err)
		}
	}
	return f
}

// pinCPU pins the i-th of two concurrent captures to its own CPU when the
// machine has two, as phase 2 pins; otherwise it leaves them unpinned.
func pinCPU(i int) int {
	if runtime.NumCPU() >= 2 {
		return i
	}
	return -1
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// sourceIn reads module-relative files of one version, as the evaluator
// reads them from a slot or from git.
func sourceIn(dir string) func(string) ([]byte, error) {
	return func(file string) ([]byte, error) {
		return os.ReadFile(filepath.Join(dir, filepath.FromSlash(file)))
	}
}

func TestSummarize_Fixture(t *testing.T) {
	f := newFixture(t)
	s, err := Summarize(f.baseCPU, f.candCPU, SummaryOptions{
		Candidate: "fast", ModulePath: fixtureModule, Changed: []string{"sum.go"},
		BaseSource: sourceIn(f.baseDir), CandSource: sourceIn(f.candDir),
		BaseMem: f.baseMem, CandMem: f.candMem,
	})
	if err != nil {
		t.Fatalf("Summarize: %v", err)
	}

	t.Run("Top", func(t *testing.T) {
		if len(s.Top) == 0 || s.Top[0].Func != "fixture.CountPairs" {
			t.Fatalf("top = %+v, want fixture.CountPairs first", s.Top)
		}
		top := s.Top[0]
		if top.File != "sum.go" || !top.Changed || top.Cum == nil {
			t.Errorf("top row = %+v, want sum.go, changed, with cum", top)
		}
		// The quadratic loop is nearly all of base's time; the winner's
		// time moves into the runtime's map code.
		if top.Flat.Base < 50 {
			t.Errorf("CountPairs flat at base = %.1f%%, want most of the samples", top.Flat.Base)
		}
		if s.Samples.Base == 0 || s.Samples.Cand == 0 {
			t.Errorf("samples = %+v", s.Samples)
		}
	})

	t.Run("Lines", func(t *testing.T) {
		want := map[string]string{ // text -> change
			"\t\tfor j := i + 1; j < len(xs); j++ {": "-",
			"\t\t\tif xs[i]+xs[j] == target {":       "-",
			"\tseen := make(map[int]int, len(xs))":   "+",
			"\t\tn += seen[target-x]":                "+",
			"\t\tseen[x]++":                          "+",
			"\treturn n":                             "",
		}
		var baseCum, candCum float64
		for _, r := range s.Lines {
			if r.Func != "fixture.CountPairs" || r.File != "sum.go" {
				t.Errorf("line row of %s (%s), want only fixture.CountPairs (sum.go)", r.Func, r.File)
			}
			if ch, ok := want[r.Text]; ok {
				if r.Change != ch {
					t.Errorf("line %q: change %q, want %q", r.Text, r.Change, ch)
				}
				delete(want, r.Text)
			}
			baseCum += r.Flat.Base
			candCum += r.Flat.Cand
		}
		for text := range want {
			t.Errorf("no line row for %q", text)
		}
		if baseCum < 50 {
			t.Errorf("base lines hold %.1f%% flat, want most of the samples", baseCum)
		}
		if candCum == 0 {
			t.Errorf("winner lines hold no samples")
		}
	})

	t.Run("Alloc", func(t *testing.T) {
		if s.Alloc == nil {
			t.Fatalf("no allocation summary; warnings %q", s.Warnings)
		}
		if s.Alloc.Bytes.Cand <= s.Alloc.Bytes.Base {
			t.Errorf("bytes = %+v, want the map-making winner to allocate more", s.Alloc.Bytes)
		}
		if r := s.Alloc.Top[0]; r.Func != "fixture.CountPairs" || r.Flat.Cand < 50 {
			t.Errorf("alloc top = %+v, want fixture.CountPairs allocating in the winner", r)
		}
	})

	t.Run("JSON", func(t *testing.T) {
		js, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(js, []byte(f.root)) {
			t.Errorf("JSON names the module's directory %s:\n%s", f.root, js)
		}
		var m map[string]any
		if err := json.Unmarshal(js, &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"candidate", "files", "top", "lines"} {
			if _, ok := m[k]; !ok {
				t.Errorf("JSON lacks %q", k)
			}
		}
	})

	t.Run("Render", func(t *testing.T) {
		var text, md bytes.Buffer
		if err := s.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		if err := s.WriteMarkdown(&md); err != nil {
			t.Fatal(err)
		}
		for _, out := range []string{text.String(), md.String()} {
			if !strings.Contains(out, "fixture.CountPairs") || !strings.Contains(out, "n += seen[target-x]") {
				t.Errorf("rendering lacks the function or its line:\n%s", out)
			}
			if strings.Contains(out, f.root) {
				t.Errorf("rendering names the module's directory:\n%s", out)
			}
		}
		if !strings.HasPrefix(md.String(), "<details>") {
			t.Errorf("markdown is not a <details> section:\n%s", md.String())
		}
		t.Logf("\n%s", text.String())
	})

	// The raw files work with pprof: the tool itself reads them.
	t.Run("Pprof", func(t *testing.T) {
		for _, args := range [][]string{
			{"-top", f.baseCPU},
			{"-top", f.candCPU},
			{"-top", "-diff_base", f.baseCPU, f.candCPU},
			{"-top", "-sample_index=alloc_space", f.candMem},
		} {
			cmd := exec.Command("go", append([]string{"tool", "pprof"}, args...)...)
			cmd.Env = append(os.Environ(), "PPROF_TMPDIR="+t.TempDir())
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("go tool pprof %s: %v\n%s", strings.Join(args, " "), err, out)
			}
			if !bytes.Contains(out, []byte("CountPairs")) {
				t.Errorf("go tool pprof %s does not name CountPairs:\n%s", strings.Join(args, " "), out)
			}
		}
	})

	t.Run("Capture", func(t *testing.T) {
		ctx := context.Background()
		canceled, cancel := context.WithCancel(ctx)
		cancel()
		dir := t.TempDir()
		for _, tt := range []struct {
			name    string
			opts    CaptureOptions
			ctx     context.Context
			wantErr error
			wantMsg string
		}{
			{name: "ErrNoProfileOut", opts: CaptureOptions{Binary: f.baseBin, Dir: f.baseDir}, wantErr: ErrNoProfileOut},
			{name: "ErrNoBenchmark", opts: CaptureOptions{Binary: f.baseBin, Dir: f.baseDir, Bench: "^BenchmarkNone$"},
				wantErr: ErrNoBenchmark},
			{name: "BadFlag", opts: CaptureOptions{Binary: f.baseBin, Dir: f.baseDir, Extra: []string{"-test.nosuchflag"}},
				wantMsg: "exit status"},
			{name: "NoBinary", opts: CaptureOptions{Binary: filepath.Join(dir, "missing.test"), Dir: f.baseDir},
				wantMsg: "missing.test"},
			{name: "Canceled", ctx: canceled, opts: CaptureOptions{Binary: f.baseBin, Dir: f.baseDir},
				wantErr: context.Canceled},
		} {
			t.Run(tt.name, func(t *testing.T) {
				if tt.ctx == nil {
					tt.ctx = ctx
				}
				if tt.name != "ErrNoProfileOut" {
					tt.opts.Out = filepath.Join(dir, tt.name+".pprof")
				}
				tt.opts.Benchtime, tt.opts.CPU = "1x", -1
				err := Capture(tt.ctx, tt.opts)
				switch {
				case err == nil:
					t.Fatal("Capture succeeded")
				case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
					t.Errorf("Capture: %v, want %v", err, tt.wantErr)
				case !strings.Contains(err.Error(), tt.wantMsg):
					t.Errorf("Capture: %v, want it to say %q", err, tt.wantMsg)
				}
			})
		}
		// Every allocation recorded: the memory profile gets a run of its own.
		t.Run("MemRate", func(t *testing.T) {
			o := CaptureOptions{Binary: f.candBin, Dir: f.candDir, Benchtime: "20x", CPU: -1,
				Out: filepath.Join(dir, "cpu.pprof"), MemOut: filepath.Join(dir, "mem.pprof"), MemRate: 1}
			if err := Capture(ctx, o); err != nil {
				t.Fatalf("Capture: %v", err)
			}
			for _, p := range []string{o.Out, o.MemOut} {
				if _, err := readProfile(p); err != nil {
					t.Errorf("read %s: %v", filepath.Base(p), err)
				}
			}
		})
	})
}
