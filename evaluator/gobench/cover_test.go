package gobench

import (
	"context"
	"maps"
	"path/filepath"
	"testing"
)

// TestParseProfile reads a count profile: blocks of the module, relative
// to its root, counts summed over repeated blocks, other modules and
// malformed lines left out.
func TestParseProfile(t *testing.T) {
	prof := `mode: count
example.com/m/sum.go:3.30,6.2 1 4
example.com/m/sub/x.go:10.1,12.3 2 0
example.com/m/sum.go:3.30,6.2 1 1
example.com/other/y.go:1.1,2.2 1 9
example.com/m/bad.go:x,y 1 1
example.com/m/short.go:1.1,2.2 1
`
	got := ParseProfile([]byte(prof), "example.com/m")
	want := map[Block]int64{
		{File: "sum.go", Start: 3, End: 6}:     5,
		{File: "sub/x.go", Start: 10, End: 12}: 0,
	}
	if !maps.Equal(got, want) {
		t.Errorf("ParseProfile = %v; want %v", got, want)
	}
	tr := Trace{Blocks: []Block{{File: "sum.go", Start: 3, End: 6}}}
	if !tr.Executes("sum.go", 6, 9) || tr.Executes("sum.go", 7, 9) || tr.Executes("sub/x.go", 1, 100) {
		t.Error("Executes matches lines that do not overlap, or misses ones that do")
	}
}

// TestCover runs real benchmarks with coverage: each executes what it
// calls and nothing that an earlier run or start-up alone executed, and a
// benchmark that skips has unknown coverage.
func TestCover(t *testing.T) {
	needGo(t)
	dir := newModule(t, map[string]string{
		"go.mod": "module example.com/c\n\ngo 1.22\n",
		"c.go": `package c

var table = build()

func build() []int { return []int{1, 2} }

func A(n int) int {
	return n + table[0]
}

func B(n int) int {
	return n * 2
}
`,
		"c_test.go": `package c

import "testing"

var sink int

func BenchmarkA(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink = A(i)
	}
}

func BenchmarkB(b *testing.B) {
	b.Run("sub", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			sink = B(i)
		}
	})
}

func BenchmarkSkip(b *testing.B) { b.Skip("no data") }
`,
	})
	ctx := context.Background()
	bin := filepath.Join(t.TempDir(), "c.test")
	if err := BuildCover(ctx, dir, "example.com/c", bin, nil); err != nil {
		t.Fatal(err)
	}
	ts, err := Cover(ctx, bin, dir, "example.com/c", t.TempDir(), []string{"BenchmarkA", "BenchmarkB", "BenchmarkSkip"}, Place{CPU: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 3 {
		t.Fatalf("%d traces; want 3", len(ts))
	}
	a, b, skip := ts[0], ts[1], ts[2]
	if !a.Executes("c.go", 7, 9) || a.Executes("c.go", 11, 13) || a.Executes("c.go", 5, 5) {
		t.Errorf("BenchmarkA's blocks %v; want A's, not B's nor build's (start-up)", a.Blocks)
	}
	if !b.Executes("c.go", 11, 13) || b.Executes("c.go", 7, 9) {
		t.Errorf("BenchmarkB's blocks %v; want B's, not A's, which only the run before it executed", b.Blocks)
	}
	if len(b.Subs) != 1 || b.Subs[0].Bench != "BenchmarkB/sub" {
		t.Errorf("BenchmarkB's subs %+v; want BenchmarkB/sub", b.Subs)
	}
	if skip.Failed == "" || len(skip.Blocks) != 0 {
		t.Errorf("BenchmarkSkip: %+v; want its coverage unknown", skip)
	}
}
