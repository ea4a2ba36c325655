package winprofile

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/optimizer-dev/optimizer/evaluator/gobench"
	"github.com/optimizer-dev/optimizer/evaluator/measure"
	"github.com/optimizer-dev/optimizer/result"
)

// opsBenchmarks has one benchmark with three sub-benchmarks and two plain
// ones; each says when it runs.
const opsBenchmarks = `package ops

import "testing"

func BenchmarkOps(b *testing.B) {
	for _, n := range []string{"Prev", "Next", "Seek"} {
		b.Run(n, func(b *testing.B) { b.Log("ran " + b.Name()) })
	}
}

func BenchmarkA(b *testing.B) { b.Log("ran " + b.Name()) }
func BenchmarkB(b *testing.B) { b.Log("ran " + b.Name()) }
`

// TestPattern: the winner's profile runs the benchmarks that improved and
// no other: the sub-benchmarks a --bench-filter chose, not their whole
// top-level benchmark. Checked on a real test binary.
func TestPattern(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command")
	}
	dir := t.TempDir()
	for name, body := range map[string]string{"go.mod": "module example.com/ops\n\ngo 1.22\n", "ops_test.go": opsBenchmarks} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "ops.test")
	build := exec.Command("go", "test", "-c", "-o", bin, ".")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go test -c: %v\n%s", err, out)
	}
	ran := regexp.MustCompile(`ran (\S+)`)
	for _, names := range [][]string{
		{"BenchmarkOps/Prev", "BenchmarkOps/Next"},
		{"BenchmarkOps/Seek"},
		{"BenchmarkA"},
		{"BenchmarkA", "BenchmarkOps/Next"},
	} {
		pattern := Pattern(names)
		out, err := exec.Command(bin, "-test.run=^$", "-test.bench="+pattern, "-test.benchtime=1x", "-test.v").CombinedOutput()
		if err != nil {
			t.Fatalf("%s -test.bench=%s: %v\n%s", bin, pattern, err, out)
		}
		var got []string
		for _, m := range ran.FindAllStringSubmatch(string(out), -1) {
			got = append(got, m[1])
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(names))
		if !slices.Equal(slices.Compact(got), want) {
			t.Errorf("Pattern(%q) = %q ran %q, want %q", names, pattern, slices.Compact(got), want)
		}
	}
}

// TestImproved_TheChangedBenchmarks: a winner faster on 2 of its 8
// benchmarks (issue 36) is profiled on those two, and not on the six that
// did not change. The two have intervals that clear the threshold, though
// they were stored labelled not-faster.
func TestImproved_TheChangedBenchmarks(t *testing.T) {
	names := []string{"BenchmarkGet", "BenchmarkPut", "BenchmarkA", "BenchmarkB", "BenchmarkC", "BenchmarkD", "BenchmarkE", "BenchmarkF"}
	pkg := gobench.Package{ImportPath: "example.com/kv", Dir: ".", Benchmarks: names}
	var rows []result.BenchResult
	var measured []*measure.GoBench
	for i, name := range names {
		row := result.BenchResult{Name: name, Unit: "sec/op", Base: 1e-6, Speedup: 1, CI: [2]float64{0.97, 1.03}, Pairs: 10}
		if i < 2 {
			row.Speedup, row.CI = 2.99, [2]float64{2.85, 3.15}
		}
		row.Verdict = result.VerdictNotFaster
		rows = append(rows, row)
		measured = append(measured, &measure.GoBench{Pkg: pkg, Name: name})
	}
	tg := Improved(measured, rows, 0.05)
	if tg == nil {
		t.Fatal("the winner faster on 2 of 8 benchmarks is not profiled")
	}
	if want := "^(BenchmarkGet|BenchmarkPut)$"; tg.Pattern != want {
		t.Errorf("profiled on %q, want %q: the benchmarks that changed", tg.Pattern, want)
	}
	if got := Faster(rows, 0.05); !slices.Equal(got, names[:2]) {
		t.Errorf("Faster = %q, want %q", got, names[:2])
	}
}

// TestImproved_OnePackage: the profile runs one package's binaries, the
// one whose benchmark improved most, and its allocation profile only when
// an allocation metric of that package changed.
func TestImproved_OnePackage(t *testing.T) {
	p, q := gobench.Package{ImportPath: "ex/p", Dir: "p"}, gobench.Package{ImportPath: "ex/q", Dir: "q"}
	measured := []*measure.GoBench{{Pkg: p, Name: "BenchmarkP", BaseBin: "p-base", CandBin: "p-cand"}, {Pkg: q, Name: "BenchmarkQ"}}
	fast := func(name string, speedup float64) result.BenchResult {
		return result.BenchResult{Name: name, Unit: "sec/op", Speedup: speedup, CI: [2]float64{speedup * 0.9, speedup * 1.1}, Verdict: result.VerdictFaster}
	}
	rows := []result.BenchResult{fast("BenchmarkP/n=1", 3), fast("BenchmarkP/n=2", 2), fast("BenchmarkQ", 2.5),
		{Name: "BenchmarkQ", Unit: "allocs/op", Exact: true, Speedup: 2}}
	tg := Improved(measured, rows, 0.05)
	if tg == nil || tg.Bench != measured[0] || tg.Pattern != "^(BenchmarkP)$/^(n=1|n=2)$" || tg.Allocs {
		t.Fatalf("Improved = %+v; want p's benchmarks, without allocations", tg)
	}
	rows = append(rows, result.BenchResult{Name: "BenchmarkP/n=1", Unit: "B/op", Beside: true, Decreased: true})
	if tg = Improved(measured, rows, 0.05); tg == nil || !tg.Allocs {
		t.Fatalf("Improved = %+v; want p's allocations profiled too", tg)
	}
	base, cand := tg.Captures("/out", "my%2Fcand", "/slot1", "/slot0", 3, []string{"-test.benchmem"})
	if base.Binary != "p-base" || cand.Binary != "p-cand" || base.Dir != "/slot1/p" || cand.Dir != "/slot0/p" ||
		base.Out != "/out/base.cpu.pprof" || cand.Out != "/out/my%2Fcand.cpu.pprof" || cand.MemOut != "/out/my%2Fcand.mem.pprof" ||
		base.Bench != tg.Pattern || cand.CPU != 3 {
		t.Errorf("Captures = %+v, %+v", base, cand)
	}
	if tg := Improved(measured, []result.BenchResult{{Name: "BenchmarkP", Unit: "sec/op", Speedup: 1, Verdict: result.VerdictNotFaster}}, 0.05); tg != nil {
		t.Errorf("Improved with nothing faster = %+v, want nil", tg)
	}
}

// TestDirSource: a slot's files are read inside it, never through a path
// that leaves it.
func TestDirSource(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a", "x.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	read := DirSource(dir)
	if b, err := read("a/x.go"); err != nil || string(b) != "package a\n" {
		t.Errorf("read a/x.go = %q, %v", b, err)
	}
	if _, err := read("../" + filepath.Base(dir) + "/a/x.go"); err == nil {
		t.Error("read a path that leaves the slot: no error")
	}
}
