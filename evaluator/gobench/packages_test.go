package gobench

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/optimizer-dev/optimizer/testdata"
)

// basicModule: b imports a, d imports a but has no benchmark, c stands
// alone; a has a benchmark in an external test package too.
var basicModule = map[string]string{
	"go.mod": "module example.com/m\n\ngo 1.22\n",
	"a/a.go": "package a\n\nfunc Sum(xs []int) (s int) {\n\tfor _, x := range xs {\n\t\ts += x\n\t}\n\treturn s\n}\n",
	"a/a_test.go": `package a

import "testing"

func TestSum(t *testing.T) {}

func BenchmarkSum(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Sum([]int{1, 2, 3})
	}
}

// Not benchmarks: a lower-case letter after Benchmark, and a method.
func Benchmarkhelper(b *testing.B) {}

type suite struct{}

func (suite) BenchmarkMethod(b *testing.B) {}
`,
	"a/a_ext_test.go": `package a_test

import (
	"errors"
	"go/ast"
	"testing"

	"example.com/m/a"
)

func BenchmarkExternal(b *testing.B) {
	b.Run("small", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			a.Sum([]int{1})
		}
	})
}
`,
	"a/testdata/in.txt": "data\n",
	"b/b.go":            "package b\n\nimport \"example.com/m/a\"\n\nfunc Twice(xs []int) int { return 2 * a.Sum(xs) }\n",
	"b/b_test.go":       "package b\n\nimport \"testing\"\n\nfunc BenchmarkTwice(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\tTwice(nil)\n\t}\n}\n",
	"c/c.go":            "package c\n\nfunc C() int { return 1 }\n",
	"c/c_test.go":       "package c\n\nimport \"testing\"\n\nfunc BenchmarkC(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\tC()\n\t}\n}\n",
	"d/d.go":            "package d\n\nimport \"example.com/m/a\"\n\nfunc D() int { return a.Sum(nil) }\n",
	"docs/notes.md":     "notes\n",
}

// depsModule: p imports q imports r; s imports r from its test only; x
// imports q from its external test only; the root package m stands alone.
var depsModule = map[string]string{
	"go.mod":      "module example.com/m\n\ngo 1.22\n",
	"m.go":        "package m\n\nfunc M() {}\n",
	"m_test.go":   "package m\n\nimport \"testing\"\n\nfunc BenchmarkM(b *testing.B) {}\n",
	"r/r.go":      "package r\n\nfunc R() int { return 1 }\n",
	"r/r_test.go": "package r\n\nimport \"testing\"\n\nfunc BenchmarkR(b *testing.B) {}\n",
	"q/q.go":      "package q\n\nimport \"example.com/m/r\"\n\nfunc Q() int { return r.R() }\n",
	"p/p.go":      "package p\n\nimport \"example.com/m/q\"\n\nfunc P() int { return q.Q() }\n",
	"p/p_test.go": "package p\n\nimport \"testing\"\n\nfunc BenchmarkP(b *testing.B) {}\n",
	"s/s.go":      "package s\n",
	"s/s_test.go": "package s\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/r\"\n)\n\nfunc BenchmarkS(b *testing.B) { r.R() }\n",
	"x/x.go":      "package x\n",
	"x/x_test.go": "package x_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/q\"\n)\n\nfunc BenchmarkX(b *testing.B) { q.Q() }\n",
}

var (
	pkgA = Package{ImportPath: "example.com/m/a", Dir: "a", Benchmarks: []string{"BenchmarkExternal", "BenchmarkSum"}}
	pkgB = Package{ImportPath: "example.com/m/b", Dir: "b", Benchmarks: []string{"BenchmarkTwice"}}
	pkgC = Package{ImportPath: "example.com/m/c", Dir: "c", Benchmarks: []string{"BenchmarkC"}}

	pkgM = Package{ImportPath: "example.com/m", Dir: ".", Benchmarks: []string{"BenchmarkM"}}
	pkgP = Package{ImportPath: "example.com/m/p", Dir: "p", Benchmarks: []string{"BenchmarkP"}}
	pkgR = Package{ImportPath: "example.com/m/r", Dir: "r", Benchmarks: []string{"BenchmarkR"}}
	pkgS = Package{ImportPath: "example.com/m/s", Dir: "s", Benchmarks: []string{"BenchmarkS"}}
	pkgX = Package{ImportPath: "example.com/m/x", Dir: "x", Benchmarks: []string{"BenchmarkX"}}
)

func TestPackages(t *testing.T) {
	needGo(t)
	basic, deps := newModule(t, basicModule), newModule(t, depsModule)
	for _, tt := range []struct {
		name  string
		dir   string
		files []string
		all   bool
		want  []Package
	}{
		{"ChangeA", basic, []string{"a/a.go"}, false, []Package{pkgA, pkgB}},
		{"All", basic, nil, true, []Package{pkgA, pkgB, pkgC}},
		{"ChangeC", basic, []string{"c/c.go"}, false, []Package{pkgC}},
		{"Testdata", basic, []string{"a/testdata/in.txt"}, false, []Package{pkgA, pkgB}},
		{"NoBenchmarkReached", basic, []string{"d/d.go"}, false, nil},
		{"NoPackage", basic, []string{"docs/notes.md"}, false, nil},
		{"GoMod", basic, []string{"go.mod"}, false, []Package{pkgA, pkgB, pkgC}},
		{"NewFile", basic, []string{"./c/new.go"}, false, []Package{pkgC}},
		{"Transitive", deps, []string{"r/r.go"}, false, []Package{pkgP, pkgR, pkgS, pkgX}},
		{"XTestImport", deps, []string{"q/q.go"}, false, []Package{pkgP, pkgX}},
		{"Root", deps, []string{"m.go"}, false, []Package{pkgM}},
		{"RootNearestParent", deps, []string{"docs/notes.md"}, false, []Package{pkgM}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Packages(context.Background(), tt.dir, tt.files, tt.all)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Packages(%q, all=%v):\n got %+v\nwant %+v", tt.files, tt.all, got, tt.want)
			}
		})
	}
}

func TestPackages_NotModule(t *testing.T) {
	needGo(t)
	if _, err := Packages(context.Background(), t.TempDir(), nil, true); err == nil {
		t.Fatal("Packages outside a module: no error")
	}
}

func TestPackages_Canceled(t *testing.T) {
	needGo(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Packages(ctx, newModule(t, basicModule), nil, true)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestIsBenchmark(t *testing.T) {
	const src = `package p

import (
	"errors"
	"go/ast"
	"testing"
	tt "testing"
)

func Benchmark(b *testing.B)           {}
func BenchmarkA(b *testing.B)          {}
func Benchmark_x(b *tt.B)              {}
func BenchmarkÉ(b *B)                  {}
func Benchmarkx(b *testing.B)          {}
func BenchmarkTwo(b *testing.B, n int) {}
func BenchmarkNone()                   {}
func BenchmarkValue(b testing.B)       {}
func BenchmarkResult(b *testing.B) int { return 0 }
func BenchmarkGeneric[T any](b *testing.B) {}
func BenchmarkShared(b, c *testing.B)  {}
func TestA(t *testing.T)               {}
func (s) BenchmarkMethod(b *testing.B) {}
`
	f, err := parser.ParseFile(token.NewFileSet(), "p_test.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && isBenchmark(fn) {
			got = append(got, fn.Name.Name)
		}
	}
	want := []string{"Benchmark", "BenchmarkA", "Benchmark_x", "BenchmarkÉ"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("benchmarks = %q, want %q", got, want)
	}
}

// TestTopNames: the benchmarks of a commit, read without a checkout, are
// every top-level benchmark Packages finds, and those behind build tags;
// not methods, lower-case names, testdata or vendor.
func TestTopNames(t *testing.T) {
	files := maps.Clone(basicModule)
	files["a/tagged_test.go"] = "//go:build noasm\n\npackage a\n\nimport \"testing\"\n\nfunc BenchmarkTagged(b *testing.B) {}\n"
	files["a/testdata/x_test.go"] = "package x\n\nimport \"testing\"\n\nfunc BenchmarkInTestdata(b *testing.B) {}\n"
	files["vendor/v/v_test.go"] = "package v\n\nimport \"testing\"\n\nfunc BenchmarkVendored(b *testing.B) {}\n"
	dir := newModule(t, files)
	base, err := testdata.InitRepo(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	// A benchmark added to the working tree is not in the commit.
	if err := os.WriteFile(filepath.Join(dir, "c", "new_test.go"), []byte("package c\n\nimport \"testing\"\n\nfunc BenchmarkNew(b *testing.B) {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := TopNames(context.Background(), dir, base)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"BenchmarkC", "BenchmarkExternal", "BenchmarkSum", "BenchmarkTagged", "BenchmarkTwice"}
	if !slices.Equal(got, want) {
		t.Errorf("TopNames = %q, want %q", got, want)
	}

	// A commit without benchmarks has none, and no error.
	empty := t.TempDir()
	if err := writeFiles(empty, map[string]string{"go.mod": "module example.com/e\n"}); err != nil {
		t.Fatal(err)
	}
	base, err = testdata.InitRepo(context.Background(), empty)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := TopNames(context.Background(), empty, base); err != nil || len(got) != 0 {
		t.Errorf("TopNames of a commit without benchmarks = %q, %v; want none", got, err)
	}
}
