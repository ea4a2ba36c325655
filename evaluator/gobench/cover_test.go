package gobench

import (
	"maps"
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
