package scope

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/evaluator/gobench"
	"github.com/optimizer-dev/optimizer/testdata"
)

const sumGo = `package sum

import "math"

// Sum adds the squares.
func Sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += math.Pow(x, 2)
	}
	return s
}

// Mean is the mean.
func Mean(xs []float64) float64 {
	return Sum(xs) / float64(len(xs))
}

type Acc struct{ n int }

// Add counts one.
func (a *Acc) Add() { a.n++ }

func init() {
	_ = 1
}

var zero = 0.0
`

// baseRepo makes a repository holding sum/sum.go and a test file, and
// returns it with its commit.
func baseRepo(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	for p, s := range map[string]string{"go.mod": "module example.com/m\n", "sum/sum.go": sumGo,
		"sum/sum_test.go": "package sum\n", "README.md": "sum\n"} {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base, err := testdata.InitRepo(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, base
}

func names(fs []Func) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Name)
	}
	return out
}

// TestChanged reads the changed functions of real git diffs of candidates
// against a real repository.
func TestChanged(t *testing.T) {
	repo, base := baseRepo(t)
	edit := func(old, new string) map[string][]byte {
		if !strings.Contains(sumGo, old) {
			t.Fatalf("%q is not in sum.go", old)
		}
		return map[string][]byte{"sum/sum.go": []byte(strings.Replace(sumGo, old, new, 1))}
	}
	for _, tc := range []struct {
		name    string
		files   map[string][]byte
		deleted []string
		tests   bool
		funcs   []string // want Change.Funcs by name
		outside string   // want in Change.Outside; "" for none
	}{
		{name: "body", files: edit("math.Pow(x, 2)", "x * x"), funcs: []string{"Sum"}},
		{name: "doc comment", files: edit("adds the squares", "sums the squares"), funcs: []string{"Sum"}},
		{name: "two functions", files: edit("s += math.Pow(x, 2)\n\t}\n\treturn s\n}\n\n// Mean is the mean.\nfunc Mean(xs []float64) float64 {\n\treturn Sum(xs)",
			"s += x * x\n\t}\n\treturn s\n}\n\n// Mean is the mean.\nfunc Mean(xs []float64) float64 {\n\treturn 2 * Sum(xs)"), funcs: []string{"Sum", "Mean"}},
		{name: "method", files: edit("a.n++", "a.n += 1"), funcs: []string{"Acc.Add"}},
		{name: "new function and a call", files: edit("return Sum(xs) / float64(len(xs))\n}\n",
			"return sum2(xs) / float64(len(xs))\n}\n\nfunc sum2(xs []float64) float64 {\n\treturn Sum(xs)\n}\n"), funcs: []string{"Mean"}},
		{name: "new function alone", files: edit("type Acc", "func Twice(x float64) float64 { return 2 * x }\n\ntype Acc")},
		{name: "blank line", files: edit("type Acc", "\ntype Acc")},
		{name: "new method", files: edit("func init", "func (a Acc) String() string { return \"acc\" }\n\nfunc init"), outside: "a new method Acc.String"},
		{name: "init", files: edit("_ = 1", "_ = 2"), outside: "sum/sum.go:25: an init function"},
		{name: "var", files: edit("zero = 0.0", "zero = 1.0"), outside: "sum/sum.go:28: outside any function"},
		{name: "import", files: edit(`import "math"`, "import (\n\t\"math\"\n\t_ \"os\"\n)"), outside: "sum/sum.go:3: outside any function"},
		{name: "comment after the code", files: edit("var zero = 0.0\n", "var zero = 0.0\n\n// trial 7\n"), outside: "outside any function"},
		{name: "new file", files: map[string][]byte{"sum/more.go": []byte("package sum\n\nfunc More() {}\n")}, outside: "sum/more.go: a new file"},
		{name: "deleted file", deleted: []string{"sum/sum.go"}, outside: "sum/sum.go: deleted"},
		{name: "not Go", files: map[string][]byte{"README.md": []byte("sums\n")}, outside: "README.md: not a Go file"},
		{name: "test file laid back", files: map[string][]byte{"sum/sum_test.go": []byte("package sum\n\n// x\n")}},
		{name: "test file that runs", files: map[string][]byte{"sum/sum_test.go": []byte("package sum\n\n// x\n")}, tests: true,
			outside: "sum/sum_test.go: a test file"},
		{name: "does not parse", files: map[string][]byte{"sum/sum.go": []byte(sumGo + "\nfunc {\n")}, outside: "does not parse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := candidate.Candidate{Name: tc.name, Source: tc.name, Files: tc.files, Deleted: tc.deleted}
			d, err := candidate.Diff(context.Background(), repo, base, c, func(p string) bool { return strings.HasSuffix(p, ".go") })
			if err != nil {
				t.Fatal(err)
			}
			ch := Changed(d, tc.tests)
			if got := names(ch.Funcs); !slices.Equal(got, tc.funcs) {
				t.Errorf("funcs %q; want %q (outside: %q)", got, tc.funcs, ch.Outside)
			}
			switch got := strings.Join(ch.Outside, "; "); {
			case tc.outside == "" && got != "":
				t.Errorf("outside: %q; want none", got)
			case !strings.Contains(got, tc.outside):
				t.Errorf("outside: %q; want %q", got, tc.outside)
			}
		})
	}
}

// TestChanged_Lines checks a changed function's lines, which coverage is
// matched against, and its siblings.
func TestChanged_Lines(t *testing.T) {
	repo, base := baseRepo(t)
	c := candidate.Candidate{Name: "x", Source: "x", Files: map[string][]byte{"sum/sum.go": []byte(strings.Replace(sumGo, "x, 2", "x, 3", 1))}}
	d, err := candidate.Diff(context.Background(), repo, base, c, func(p string) bool { return strings.HasSuffix(p, ".go") })
	if err != nil {
		t.Fatal(err)
	}
	ch := Changed(d, false)
	want := []Func{{File: "sum/sum.go", Name: "Sum", Line: 6, EndLine: 12}}
	if !slices.Equal(ch.Funcs, want) {
		t.Errorf("funcs %+v; want %+v", ch.Funcs, want)
	}
	if got := names(ch.Siblings); !slices.Equal(got, []string{"Sum", "Mean", "Acc.Add", "init"}) {
		t.Errorf("siblings %q", got)
	}
}

// TestPick matches changed functions with what benchmarks execute.
func TestPick(t *testing.T) {
	sum := Func{File: "sum/sum.go", Name: "Sum", Line: 6, EndLine: 12}
	mean := Func{File: "sum/sum.go", Name: "Mean", Line: 15, EndLine: 17}
	add := Func{File: "sum/sum.go", Name: "Acc.Add", Line: 22, EndLine: 22}
	trace := func(name string, blocks ...gobench.Block) Bench {
		return Bench{Pkg: "example.com/m/sum", Trace: gobench.Trace{Bench: name, Blocks: blocks}}
	}
	benches := []Bench{
		trace("BenchmarkSum", gobench.Block{File: "sum/sum.go", Start: 6, End: 8}, gobench.Block{File: "sum/sum.go", Start: 11, End: 11}),
		trace("BenchmarkMean", gobench.Block{File: "sum/sum.go", Start: 15, End: 17}, gobench.Block{File: "sum/sum.go", Start: 6, End: 8}),
		trace("BenchmarkOther", gobench.Block{File: "other/o.go", Start: 6, End: 8}),
		trace("BenchmarkAdd", gobench.Block{File: "sum/sum.go", Start: 22, End: 22}),
	}

	s := Pick(Change{Funcs: []Func{sum}}, benches)
	if !slices.Equal(s.Run, []int{0, 1}) || s.All || !strings.Contains(s.Why, "they execute Sum (sum/sum.go:6)") {
		t.Errorf("a change to Sum: %+v; want BenchmarkSum and BenchmarkMean", s)
	}
	s = Pick(Change{Funcs: []Func{mean}}, benches)
	if !slices.Equal(s.Run, []int{1}) {
		t.Errorf("a change to Mean: %+v; want BenchmarkMean", s)
	}

	// None executes it: the closest are those that execute the most of
	// its file's functions.
	unused := Func{File: "sum/sum.go", Name: "Unused", Line: 30, EndLine: 32}
	s = Pick(Change{Funcs: []Func{unused}, Siblings: []Func{sum, mean, add, unused}}, benches)
	if len(s.Run) != 0 || !slices.Equal(s.Closest, []int{1, 0, 3}) || !strings.Contains(s.Why, "no benchmark executes Unused (sum/sum.go:30)") {
		t.Errorf("a change no benchmark executes: %+v; want none run, closest BenchmarkMean, BenchmarkSum, BenchmarkAdd", s)
	}

	// A benchmark whose coverage is unknown runs.
	failed := append(slices.Clone(benches), Bench{Pkg: "example.com/m/sum", Trace: gobench.Trace{Bench: "BenchmarkData", Failed: "prints no result"}})
	s = Pick(Change{Funcs: []Func{mean}}, failed)
	if !slices.Equal(s.Run, []int{1, 4}) || !strings.Contains(s.Why, "BenchmarkData also run") {
		t.Errorf("with a benchmark of unknown coverage: %+v; want it run too", s)
	}

	s = Pick(Change{Funcs: []Func{sum}, Outside: []string{"sum/sum.go:28: outside any function"}}, benches)
	if !s.All || !strings.Contains(s.Why, "sum/sum.go:28: outside any function") {
		t.Errorf("a change outside functions: %+v; want all", s)
	}
}
