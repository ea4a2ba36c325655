package profiler

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// frame is one stack frame of a synthetic profile.
type frame struct {
	fn   string
	file string
	line int
}

// stack is a synthetic sample: 10n samples of 10ms through frames, leaf
// first (10n, so that no side has too few samples to trust).
type stack struct {
	n      int64
	frames []frame
}

// writeProfile writes a CPU profile (samples/count, cpu/nanoseconds) made
// of stacks, as the runtime would, and returns its path.
func writeProfile(t *testing.T, dir, name string, stacks []stack) string {
	t.Helper()
	return writeTyped(t, dir, name, stacks, &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:     10_000_000,
	}, func(n int64) []int64 { return []int64{10 * n, 10 * n * 10_000_000} })
}

// writeMemProfile writes a memory profile (alloc_objects/count,
// alloc_space/bytes) made of stacks, each 10n allocations of a KiB, and
// returns its path.
func writeMemProfile(t *testing.T, dir, name string, stacks []stack) string {
	t.Helper()
	return writeTyped(t, dir, name, stacks, &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "alloc_objects", Unit: "count"}, {Type: "alloc_space", Unit: "bytes"}},
		PeriodType: &profile.ValueType{Type: "space", Unit: "bytes"},
		Period:     512 * 1024,
	}, func(n int64) []int64 { return []int64{10 * n, 10 * n * 1024} })
}

// writeTyped writes p, of its sample types, with a sample of value(n) for
// each of stacks.
func writeTyped(t *testing.T, dir, name string, stacks []stack, p *profile.Profile, value func(n int64) []int64) string {
	t.Helper()
	p.Mapping = []*profile.Mapping{{ID: 1, Start: 0x1000, Limit: 0xffffff, File: "/tmp/x.test", HasFunctions: true, HasFilenames: true, HasLineNumbers: true}}
	funcs := map[string]*profile.Function{}
	for _, s := range stacks {
		var locs []*profile.Location
		for _, fr := range s.frames {
			fn := funcs[fr.fn]
			if fn == nil {
				fn = &profile.Function{ID: uint64(len(funcs) + 1), Name: fr.fn, SystemName: fr.fn, Filename: fr.file,
					StartLine: int64(synthStarts[fr.fn])}
				funcs[fr.fn] = fn
				p.Function = append(p.Function, fn)
			}
			loc := &profile.Location{ID: uint64(len(p.Location) + 1), Mapping: p.Mapping[0],
				Address: uint64(0x1000 + len(p.Location)), Line: []profile.Line{{Function: fn, Line: int64(fr.line)}}}
			p.Location = append(p.Location, loc)
			locs = append(locs, loc)
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: locs, Value: value(s.n)})
	}
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := p.Write(f); err != nil {
		t.Fatal(err)
	}
	return path
}

// The synthetic module: base's Slow calls expensive for each element; the
// winner inlines the work and drops expensive.
const (
	synthModule = "example.com/m"
	synthBase   = `package m

func Slow(xs []int) int {
	s := 0
	for _, x := range xs {
		s += expensive(x)
	}
	return s
}

func expensive(x int) int { return x * x }
`
	synthWinner = `package m

func Slow(xs []int) int {
	s := 0
	for i := range xs {
		s += xs[i] * xs[i]
	}
	return s
}
`
)

// synthStarts are the lines where the synthetic functions start.
var synthStarts = map[string]int{"example.com/m.Slow": 3, "example.com/m.expensive": 11,
	"example.com/m/sub.(*T).Get": 3, "example.com/m.BenchmarkSlow": 8}

// synthProfiles writes base's and the winner's profiles, with file names as
// a binary built with -trimpath in module example.com/m has them, or under
// root when root is not "".
func synthProfiles(t *testing.T, root string) (base, cand string) {
	t.Helper()
	file := func(rel string) string {
		if root != "" {
			return root + "/" + rel
		}
		return synthModule + "/" + rel
	}
	calc, test, sub := file("calc.go"), file("calc_test.go"), file("sub/t.go")
	bench := frame{"example.com/m.BenchmarkSlow", test, 10}
	runN := frame{"testing.(*B).runN", "testing/benchmark.go", 200}
	exit := frame{"runtime.goexit", "runtime/asm_amd64.s", 1700}
	dir := t.TempDir()
	base = writeProfile(t, dir, "base.pprof", []stack{
		{50, []frame{{"example.com/m.expensive", calc, 11}, {"example.com/m.Slow", calc, 6}, bench, runN, exit}},
		{25, []frame{{"example.com/m.Slow", calc, 5}, bench, runN, exit}},
		{10, []frame{{"runtime.mallocgc", "runtime/malloc.go", 100}, {"example.com/m.Slow", calc, 4}, bench, runN, exit}},
		{5, []frame{{"example.com/m/sub.(*T).Get", sub, 3}, bench, runN, exit}},
		{10, []frame{{"runtime.gcBgMarkWorker", "runtime/mgc.go", 1400}, exit}},
	})
	cand = writeProfile(t, dir, "winner.pprof", []stack{
		{40, []frame{{"example.com/m.Slow", calc, 6}, bench, runN, exit}},
		{10, []frame{{"example.com/m.Slow", calc, 5}, bench, runN, exit}},
		{5, []frame{{"sort.insertionSort", "sort/zsortfunc.go", 12}, {"example.com/m/sub.(*T).Get", sub, 3}, bench, runN, exit}},
		{5, []frame{{"runtime.gcBgMarkWorker", "runtime/mgc.go", 1400}, exit}},
	})
	return base, cand
}

func synthSources(files map[string]string) func(string) ([]byte, error) {
	return func(file string) ([]byte, error) {
		if s, ok := files[file]; ok {
			return []byte(s), nil
		}
		return nil, &fs.PathError{Op: "open", Path: "/slots/3/" + file, Err: fs.ErrNotExist}
	}
}

func synthOptions() SummaryOptions {
	return SummaryOptions{
		Candidate: "inline", ModulePath: synthModule, Changed: []string{"calc.go"},
		BaseSource: synthSources(map[string]string{"calc.go": synthBase}),
		CandSource: synthSources(map[string]string{"calc.go": synthWinner}),
	}
}

// topText lists a top table's rows as "func flat.base/flat.cand".
func topText(rows []FuncRow) []string {
	var out []string
	for _, r := range rows {
		s := fmt.Sprintf("%s %g/%g", r.Func, r.Flat.Base, r.Flat.Cand)
		if r.Cum != nil {
			s += fmt.Sprintf(" cum %g/%g", r.Cum.Base, r.Cum.Cand)
		}
		if r.Changed {
			s += " *"
		}
		if r.Class != "" {
			s += " [" + r.Class + "]"
		}
		out = append(out, s)
	}
	return out
}

// lineText lists line rows as "func base_line/cand_line change cum.base/cum.cand text".
func lineText(rows []LineRow) []string {
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprintf("%s %d/%d %1s %g/%g %s", r.Func, r.BaseLine, r.CandLine, r.Change, r.Cum.Base, r.Cum.Cand, strings.TrimSpace(r.Text)))
	}
	return out
}

func equalLists(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\ngot\n\t%s\nwant\n\t%s", what, strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

func TestSummarize_Top(t *testing.T) {
	base, cand := synthProfiles(t, "")
	for _, tt := range []struct {
		name string
		edit func(*SummaryOptions)
		want []string
	}{
		// Library and runtime hot spots are named, not lumped together.
		{"Default", func(*SummaryOptions) {}, []string{
			"m.Slow 25/83.33 cum 85/83.33 *",
			"m.expensive 50/0 cum 50/0 *",
			"sub.(*T).Get 5/0 cum 5/8.33",
			"runtime.gcBgMarkWorker 10/8.33 cum 10/8.33 [runtime]",
			"runtime.mallocgc 10/0 cum 10/0 [runtime]",
			"sort.insertionSort 0/8.33 cum 0/8.33 [library]",
		}},
		{"TopN", func(o *SummaryOptions) { o.TopN = 1 }, []string{
			"m.Slow 25/83.33 cum 85/83.33 *",
			"m.expensive 50/0 cum 50/0 *", // changed functions stay
			"runtime.gcBgMarkWorker 10/8.33 cum 10/8.33 [runtime]",
			"runtime.mallocgc 10/0 cum 10/0 [runtime]",
			"sort.insertionSort 0/8.33 cum 0/8.33 [library]",
		}},
		// Past TopOutside, the rest of the time outside the module is folded.
		{"TopOutside", func(o *SummaryOptions) { o.TopOutside = 1 }, []string{
			"m.Slow 25/83.33 cum 85/83.33 *",
			"m.expensive 50/0 cum 50/0 *",
			"sub.(*T).Get 5/0 cum 5/8.33",
			"runtime.gcBgMarkWorker 10/8.33 cum 10/8.33 [runtime]",
			"(runtime) 10/0",
			"(other) 0/8.33",
		}},
		{"NoOutside", func(o *SummaryOptions) { o.TopOutside = -1 }, []string{
			"m.Slow 25/83.33 cum 85/83.33 *",
			"m.expensive 50/0 cum 50/0 *",
			"sub.(*T).Get 5/0 cum 5/8.33",
			"(runtime) 20/8.33",
			"(other) 0/8.33",
		}},
		{"AllCode", func(o *SummaryOptions) { o.AllCode = true; o.TopN = 4 }, []string{
			"m.Slow 25/83.33 cum 85/83.33 *",
			"m.expensive 50/0 cum 50/0 *",
			"runtime.gcBgMarkWorker 10/8.33 cum 10/8.33",
			"runtime.mallocgc 10/0 cum 10/0",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := synthOptions()
			tt.edit(&o)
			s, err := Summarize(base, cand, o)
			if err != nil {
				t.Fatal(err)
			}
			equalLists(t, "top", topText(s.Top), tt.want)
			if s.Samples != (Counts{1000, 600}) {
				t.Errorf("samples = %+v, want 1000 and 600", s.Samples)
			}
		})
	}
}

func TestSummarize_Lines(t *testing.T) {
	base, cand := synthProfiles(t, "")
	s, err := Summarize(base, cand, synthOptions())
	if err != nil {
		t.Fatal(err)
	}
	equalLists(t, "lines", lineText(s.Lines), []string{
		"m.Slow 3/3   0/0 func Slow(xs []int) int {",
		"m.Slow 4/4   10/0 s := 0",
		"m.Slow 5/0 - 25/0 for _, x := range xs {",
		"m.Slow 6/0 - 50/0 s += expensive(x)",
		"m.Slow 0/5 + 0/16.67 for i := range xs {",
		"m.Slow 0/6 + 0/66.67 s += xs[i] * xs[i]",
		"m.Slow 7/7   0/0 }",
		"m.Slow 8/8   0/0 return s",
		"m.Slow 9/9   0/0 }",
		"m.expensive 11/0 - 50/0 func expensive(x int) int { return x * x }",
	})
	if len(s.Warnings) != 0 {
		t.Errorf("warnings: %q", s.Warnings)
	}
	if s.Lines[0].File != "calc.go" {
		t.Errorf("file = %q, want calc.go", s.Lines[0].File)
	}
}

func TestSummarize_Sources(t *testing.T) {
	base, cand := synthProfiles(t, "")
	t.Run("NewFile", func(t *testing.T) {
		// calc.go does not exist at base: every winner line is new.
		o := synthOptions()
		o.BaseSource = synthSources(nil)
		s, err := Summarize(base, cand, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range s.Lines {
			if r.Change != "+" || r.BaseLine != 0 {
				t.Errorf("row %+v, want only winner lines", r)
			}
		}
		if len(s.Lines) == 0 || len(s.Warnings) != 0 {
			t.Errorf("%d rows, warnings %q", len(s.Lines), s.Warnings)
		}
	})
	t.Run("Unreadable", func(t *testing.T) {
		o := synthOptions()
		o.Roots = []string{"/slots/3"}
		o.BaseSource = func(file string) ([]byte, error) {
			return nil, &fs.PathError{Op: "open", Path: "/slots/3/" + file, Err: fs.ErrPermission}
		}
		s, err := Summarize(base, cand, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "permission denied") || strings.Contains(s.Warnings[0], "/slots") {
			t.Errorf("warnings = %q, want one naming the error but not the slot", s.Warnings)
		}
		// Base's sampled lines, without text, then the winner's function.
		equalLists(t, "lines", lineText(s.Lines)[:4], []string{
			" 4/0   10/0 ",
			" 5/0   25/0 ",
			" 6/0   50/0 ",
			" 11/0   50/0 ",
		})
	})
	t.Run("NoReaders", func(t *testing.T) {
		o := synthOptions()
		o.BaseSource, o.CandSource = nil, nil
		s, err := Summarize(base, cand, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Lines) == 0 || len(s.Warnings) != 2 {
			t.Errorf("%d rows, warnings %q", len(s.Lines), s.Warnings)
		}
	})
}

func TestSummarize_Paths(t *testing.T) {
	// A binary built without -trimpath names its files by absolute path.
	base, cand := synthProfiles(t, "/slots/7")
	for _, tt := range []struct {
		name     string
		roots    []string
		wantFile string
		lines    bool
		warn     bool
	}{
		{"Roots", []string{"/slots/7/"}, "calc.go", true, false},
		{"NoRoots", nil, "calc.go", false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := synthOptions()
			o.Roots = tt.roots
			s, err := Summarize(base, cand, o)
			if err != nil {
				t.Fatal(err)
			}
			js, _ := json.Marshal(s)
			if strings.Contains(string(js), "/slots") {
				t.Errorf("JSON names the slot: %s", js)
			}
			if s.Top[0].File != tt.wantFile {
				t.Errorf("file = %q, want %q", s.Top[0].File, tt.wantFile)
			}
			if got := len(s.Lines) > 0; got != tt.lines {
				t.Errorf("line rows: %v, want %v", got, tt.lines)
			}
			if got := len(s.Warnings) > 0; got != tt.warn {
				t.Errorf("warnings %q, want some: %v", s.Warnings, tt.warn)
			}
		})
	}
}

func TestSummarize_Errors(t *testing.T) {
	dir := t.TempDir()
	base, cand := synthProfiles(t, "")
	junk := filepath.Join(dir, "junk.pprof")
	if err := os.WriteFile(junk, []byte("not a profile"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := writeProfile(t, dir, "empty.pprof", nil)
	noCPU := filepath.Join(dir, "nocpu.pprof")
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "wall", Unit: "nanoseconds"}}}
	f, _ := os.Create(noCPU)
	if err := p.Write(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, tt := range []struct {
		name       string
		base, cand string
		want       error
	}{
		{"Missing", filepath.Join(dir, "missing.pprof"), cand, fs.ErrNotExist},
		{"Junk", base, junk, nil},
		{"ErrNoSamples", base, empty, ErrNoSamples},
		{"ErrSampleType", noCPU, cand, ErrSampleType},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Summarize(tt.base, tt.cand, synthOptions())
			if err == nil {
				t.Fatalf("Summarize succeeded: %+v", s)
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("Summarize: %v, want %v", err, tt.want)
			}
		})
	}
	t.Run("Alloc", func(t *testing.T) {
		// A CPU profile is no memory profile: a warning, not a failure.
		o := synthOptions()
		o.BaseMem, o.CandMem = base, cand
		s, err := Summarize(base, cand, o)
		if err != nil {
			t.Fatal(err)
		}
		if s.Alloc != nil || len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "alloc_space") {
			t.Errorf("alloc %+v, warnings %q", s.Alloc, s.Warnings)
		}
	})
}

// TestSummarize_AsyncPreempt: a sample that lands in the frame the runtime
// injects to preempt a goroutine is the interrupted function's time, flat
// and on its line, and runtime.asyncPreempt gets no row.
func TestSummarize_AsyncPreempt(t *testing.T) {
	calc, test := synthModule+"/calc.go", synthModule+"/calc_test.go"
	bench := frame{"example.com/m.BenchmarkSlow", test, 10}
	preempt := frame{"runtime.asyncPreempt", "runtime/preempt_amd64.s", 50}
	dir := t.TempDir()
	base := writeProfile(t, dir, "base.pprof", []stack{
		{30, []frame{{"example.com/m.Slow", calc, 6}, bench}},
		{60, []frame{preempt, {"example.com/m.Slow", calc, 6}, bench}},
		{10, []frame{{"example.com/m.Slow", calc, 5}, bench}},
	})
	cand := writeProfile(t, dir, "winner.pprof", []stack{
		{10, []frame{preempt, {"example.com/m.Slow", calc, 6}, bench}},
		{40, []frame{{"example.com/m.Slow", calc, 6}, bench}},
	})
	s, err := Summarize(base, cand, synthOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range s.Top {
		if strings.Contains(r.Func, "asyncPreempt") {
			t.Errorf("a row for runtime.asyncPreempt: %+v", r)
		}
	}
	if len(s.Top) == 0 || s.Top[0].Func != "m.Slow" || s.Top[0].Flat.Base != 100 || s.Top[0].Flat.Cand != 100 {
		t.Errorf("top = %v, want m.Slow with all the flat time on both sides", topText(s.Top))
	}
	found := false
	for _, r := range s.Lines {
		if strings.TrimSpace(r.Text) == "s += expensive(x)" {
			found = true
			if r.Flat.Base != 90 {
				t.Errorf("line %q holds %g%% flat at base, want 90 (30 samples there and 60 preempted there)", r.Text, r.Flat.Base)
			}
		}
	}
	if !found {
		t.Errorf("no row for base's line 6: %v", lineText(s.Lines))
	}
}

// TestSummarize_AllocHarness: the allocations of the test binary's own
// machinery are left out of the allocation summary, its rows and its bytes.
// That is the profiler compressing its profile and the testing package
// starting up outside any benchmark. The benchmark's, its goroutines' and
// the package's init's stay.
func TestSummarize_AllocHarness(t *testing.T) {
	calc, test := synthModule+"/calc.go", synthModule+"/calc_test.go"
	bench := []frame{{"example.com/m.BenchmarkSlow", test, 10}, {"testing.(*B).runN", "testing/benchmark.go", 200}, {"testing.(*B).launch", "testing/benchmark.go", 300}}
	slow := append([]frame{{"example.com/m.Slow", calc, 6}}, bench...)
	machinery := []stack{
		{7, []frame{{"compress/flate.NewWriter", "compress/flate/deflate.go", 1}, {"compress/gzip.(*Writer).Write", "compress/gzip/gzip.go", 1},
			{"runtime/pprof.(*profileBuilder).build", "runtime/pprof/proto.go", 1}, {"runtime/pprof.profileWriter", "runtime/pprof/pprof.go", 1}}},
		{5, []frame{{"runtime/pprof.StartCPUProfile", "runtime/pprof/pprof.go", 1}, {"testing/internal/testdeps.TestDeps.StartCPUProfile", "testing/internal/testdeps/deps.go", 1},
			{"testing.(*M).before", "testing/testing.go", 1}, {"testing.(*M).Run", "testing/testing.go", 1}, {"main.main", "_testmain.go", 1}, {"runtime.main", "runtime/proc.go", 1}}},
		{3, []frame{{"regexp.onePassCopy", "regexp/onepass.go", 1}, {"testing.newMatcher", "testing/match.go", 1},
			{"testing.runBenchmarks", "testing/benchmark.go", 1}, {"testing.(*M).Run", "testing/testing.go", 1}, {"main.main", "_testmain.go", 1}, {"runtime.main", "runtime/proc.go", 1}}},
	}
	dir := t.TempDir()
	base := writeMemProfile(t, dir, "base.mem", append([]stack{
		{20, slow},
		{4, []frame{{"example.com/m.worker", calc, 9}}}, // a goroutine the code started
		{1, []frame{{"example.com/m.init", calc, 2}, {"runtime.doInit1", "runtime/proc.go", 1}, {"runtime.main", "runtime/proc.go", 1}}},
	}, machinery...))
	cand := writeMemProfile(t, dir, "winner.mem", machinery) // allocates nothing of its own
	cpu := writeProfile(t, dir, "cpu.pprof", []stack{{10, slow}})
	o := synthOptions()
	o.BaseMem, o.CandMem = base, cand
	s, err := Summarize(cpu, cpu, o)
	if err != nil {
		t.Fatal(err)
	}
	if s.Alloc == nil {
		t.Fatalf("no allocation summary; warnings %q", s.Warnings)
	}
	if want := (Counts{Base: 250 * 1024, Cand: 0}); s.Alloc.Bytes != want {
		t.Errorf("bytes = %+v, want %+v: Slow's, worker's and init's at base, none in the winner", s.Alloc.Bytes, want)
	}
	var names []string
	for _, r := range s.Alloc.Top {
		names = append(names, r.Func)
		if r.Flat.Cand != 0 {
			t.Errorf("row %+v: the winner allocates nothing of its own", r)
		}
	}
	for _, want := range []string{"m.Slow", "m.worker", "m.init"} {
		if !slices.Contains(names, want) {
			t.Errorf("top %q lacks %s", names, want)
		}
	}
	for _, n := range names {
		if strings.Contains(n, "flate") || strings.Contains(n, "pprof") || strings.Contains(n, "StartCPUProfile") || strings.Contains(n, "regexp") {
			t.Errorf("top %q names the test binary's machinery", names)
			break
		}
	}
}
