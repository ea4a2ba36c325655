package testedits

import (
	"maps"
	"slices"
	"testing"
)

func TestDiffTests(t *testing.T) {
	base := map[string][]byte{
		"p/a_test.go": []byte(`package p

import "testing"

func helper() int { return 1 }

func TestKeep(t *testing.T) { if helper() != 1 { t.Fatal("x") } }
func TestAssert(t *testing.T) { if F() != 2 { t.Fatal("F") } }
func TestOld(t *testing.T) { t.Log("same body") }
func TestGone(t *testing.T) { t.Log("gone") }
func BenchmarkF(b *testing.B) { for range b.N { F() } }
func BenchmarkSame(b *testing.B) { for range b.N { F() } }
`),
	}
	cand := map[string][]byte{
		"p/a_test.go": []byte(`package p

import "testing"

func helper() int { return 1 }

func TestKeep(t *testing.T) {
	if helper() != 1 {
		t.Fatal("x")
	}
}
func TestAssert(t *testing.T) { F() }
func TestNew(t *testing.T) { t.Log("same body") }
func BenchmarkF(b *testing.B) { for range b.N / 2 { F() } }
func BenchmarkSame(b *testing.B) { for range b.N { F() } }
`),
		"p/b_test.go": []byte("package p\n\nimport \"testing\"\n\nfunc TestAdded(t *testing.T) {}\n"),
	}
	e, con := Diff(base, cand)
	if e == nil {
		t.Fatal("no edits found")
	}
	for _, tt := range []struct {
		name      string
		got, want []string
	}{
		{"Files", e.Files, []string{"p/a_test.go", "p/b_test.go"}},
		{"Added", e.Added, []string{"p/b_test.go:TestAdded"}},
		{"Changed", e.Changed, []string{"p/a_test.go:TestAssert"}},
		{"Removed", e.Removed, []string{"p/a_test.go:TestGone"}},
		{"Renamed", e.Renamed, []string{"p/a_test.go:TestOld -> TestNew"}},
		{"Benchmarks", e.Benchmarks, []string{"p/a_test.go:BenchmarkF"}},
		{"contributed", con.Names, []string{"TestAdded", "TestAssert"}},
		{"dirs", con.Dirs, []string{"p"}},
	} {
		if !slices.Equal(tt.got, tt.want) {
			t.Errorf("%s = %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	if !e.Flagged() {
		t.Error("not flagged")
	}
	if e, _ := Diff(map[string][]byte{"a_test.go": []byte("package p\n")}, map[string][]byte{"a_test.go": []byte("package p\n")}); e != nil {
		t.Errorf("no change gave edits %+v", e)
	}
	added, _ := Diff(map[string][]byte{}, map[string][]byte{"x_test.go": []byte("package p\n\nfunc TestX(t *testing.T) {}\n")})
	if added.Flagged() {
		t.Errorf("a candidate that only adds a test is flagged: %+v", added)
	}
}

// TestIsTestFile: the runners' default names of test and benchmark files,
// in every language a JUnit job may run, are the judge; code is not.
func TestIsTestFile(t *testing.T) {
	for p, want := range map[string]bool{
		"p/a_test.go": true, "test/harness.go": false, "p/a.go": false,
		"test_calc.py": true, "pkg/calc_test.py": true, "conftest.py": true, "bench_calc.py": true,
		"tests/helpers.py": true, "calc.py": false, "testing_utils.py": false, "latest.py": false,
		"sum.test.js": true, "src/sum.spec.ts": true, "sum.bench.mjs": true, "test-sum.cjs": true,
		"test.js": true, "__tests__/helpers.tsx": true, "sum.js": false, "contest.js": false,
		"tests/it.rs": true, "benches/sum.rs": true, "src/lib.rs": false,
		"sum_test.cc": true, "test.cc": true, "sum_benchmark.cc": true, "bench/bench.cc": false, "src/sum.cpp": false,
		"src/test/java/p/SumTest.java": true, "src/main/java/p/Sum.java": false, "TestSum.java": true,
		"tests/data.json": false, "test.sh": false,
	} {
		if got := IsTestFile(p); got != want {
			t.Errorf("IsTestFile(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestDiffTests_OtherLanguages: a test file of another language is an edit
// of the whole file, and the candidate's version of it, unless deleted, is
// contributed.
func TestDiffTests_OtherLanguages(t *testing.T) {
	base := map[string][]byte{
		"test_calc.py": []byte("def test_a():\n    pass\n"),
		"test_gone.py": []byte("def test_g():\n    pass\n"),
	}
	cand := map[string][]byte{
		"test_calc.py": []byte("def test_b():\n    pass\n"),
		"new.test.js":  []byte("it('x', () => {});\n"),
	}
	e, con := Diff(base, cand)
	if e == nil || con == nil {
		t.Fatalf("edits %+v, contribution %+v; want both", e, con)
	}
	for _, tt := range []struct {
		name      string
		got, want []string
	}{
		{"Files", e.Files, []string{"new.test.js", "test_calc.py", "test_gone.py"}},
		{"Added", e.Added, []string{"new.test.js"}},
		{"Changed", e.Changed, []string{"test_calc.py"}},
		{"Removed", e.Removed, []string{"test_gone.py"}},
		{"contributed", slices.Sorted(maps.Keys(con.Files)), []string{"new.test.js", "test_calc.py"}},
	} {
		if !slices.Equal(tt.got, tt.want) {
			t.Errorf("%s = %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	if !e.Flagged() {
		t.Error("a changed and a removed test file are not flagged")
	}
	if len(con.Names) != 0 {
		t.Errorf("names %q: a Python file has no Go test functions", con.Names)
	}
}

// TestDiff_Unparsable: any edit to a Go test file that does not parse is a
// change of the file, with no test function to contribute.
func TestDiff_Unparsable(t *testing.T) {
	e, con := Diff(map[string][]byte{"p/a_test.go": []byte("package p\nfunc {")},
		map[string][]byte{"p/a_test.go": []byte("package p\nfunc {{")})
	if e == nil || !slices.Equal(e.Files, []string{"p/a_test.go"}) {
		t.Fatalf("edits %+v, want the file", e)
	}
	if con != nil {
		t.Errorf("contribution %+v from a file with no parsed tests", con)
	}
}

// TestIsFunc: go test runs TestX and Test, not Testing.
func TestIsFunc(t *testing.T) {
	for name, want := range map[string]bool{"Test": true, "TestX": true, "Test_x": true, "Testing": false, "Fuzz9": true, "Bench": false} {
		if got := isFunc(name, "Test") || isFunc(name, "Fuzz"); got != want {
			t.Errorf("isFunc(%q) = %v, want %v", name, got, want)
		}
	}
}
