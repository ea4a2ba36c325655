package profiler

import (
	"fmt"
	"strings"
	"testing"
)

func TestNamer_Class(t *testing.T) {
	n := newNamer("example.com/m", []string{"/slots/1/"})
	for _, tt := range []struct {
		name, file string
		pkg, short string
		class      class
	}{
		{"example.com/m.Sum", "example.com/m/sum.go", "example.com/m", "m.Sum", classModule},
		{"example.com/m/sub.(*T).Get", "example.com/m/sub/t.go", "example.com/m/sub", "sub.(*T).Get", classModule},
		{"example.com/m_test.BenchmarkX", "example.com/m/x_test.go", "example.com/m_test", "m_test.BenchmarkX", classModule},
		{"example.com/m.Map[...].Get", "example.com/m/map.go", "example.com/m", "m.Map[...].Get", classModule},
		{"example.com/m.(*Set[go.shape.int]).Add", "example.com/m/set.go", "example.com/m", "m.(*Set[go.shape.int]).Add", classModule},
		{"example.com/m.Sum.func1", "/slots/1/sum.go", "example.com/m", "m.Sum.func1", classModule},
		{"example.com/mod.F", "example.com/mod/f.go", "example.com/mod", "mod.F", classOther},
		{"runtime.mallocgc", "runtime/malloc.go", "runtime", "runtime.mallocgc", classRuntime},
		{"internal/runtime/maps.(*Map).getWithKey", "internal/runtime/maps/map.go", "internal/runtime/maps", "maps.(*Map).getWithKey", classRuntime},
		{"runtime/internal/syscall.Syscall6", "", "runtime/internal/syscall", "syscall.Syscall6", classRuntime},
		{"internal/bytealg.IndexByte", "", "internal/bytealg", "bytealg.IndexByte", classRuntime},
		{"testing.(*B).runN", "testing/benchmark.go", "testing", "testing.(*B).runN", classOther},
		{"github.com/dep/x.F", "github.com/dep/x@v1.0.0/f.go", "github.com/dep/x", "x.F", classOther},
		{"", "", "", "", classOther},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := pkgPath(tt.name); got != tt.pkg {
				t.Errorf("pkgPath = %q, want %q", got, tt.pkg)
			}
			if got := shortName(tt.name); got != tt.short {
				t.Errorf("shortName = %q, want %q", got, tt.short)
			}
			if got := n.class(tt.name, tt.file); got != tt.class {
				t.Errorf("class = %v, want %v", got, tt.class)
			}
		})
	}
	t.Run("NoModulePath", func(t *testing.T) {
		n := newNamer("", nil)
		if n.class("github.com/dep/x.F", "") != classModule || n.class("strings.Index", "") != classOther {
			t.Error("without a module path, code outside the standard library should count as the module's")
		}
	})
}

func TestNamer_RelFile(t *testing.T) {
	n := newNamer("example.com/m", []string{"/slots/1", `C:\slots\2`})
	for _, tt := range []struct {
		file, want string
		abs        bool
	}{
		{"example.com/m/sum.go", "sum.go", false},
		{"example.com/m/sub/t.go", "sub/t.go", false},
		{"/slots/1/sub/t.go", "sub/t.go", false},
		{`C:\slots\2\sum.go`, "sum.go", false},
		{"/home/u/elsewhere/sum.go", "sum.go", true},
		{"runtime/proc.go", "runtime/proc.go", false},
		{"example.com/mod/f.go", "example.com/mod/f.go", false},
	} {
		t.Run(tt.file, func(t *testing.T) {
			got, abs := n.relFile(tt.file)
			if got != tt.want || abs != tt.abs {
				t.Errorf("relFile = %q, %v; want %q, %v", got, abs, tt.want, tt.abs)
			}
		})
	}
	if got := n.scrub("open /slots/1/sum.go: denied; in /slots/1"); strings.Contains(got, "/slots") {
		t.Errorf("scrub left a slot: %q", got)
	}
}

func TestAlign(t *testing.T) {
	for _, tt := range []struct {
		name string
		a, b string // lines, one letter each
		want string // kinds
	}{
		{"Equal", "abc", "abc", "==="},
		{"Empty", "", "", ""},
		{"AllNew", "", "ab", "++"},
		{"AllGone", "ab", "", "--"},
		{"Insert", "ac", "abc", "=+="},
		{"Delete", "abc", "ac", "=-="},
		{"Replace", "axyd", "apqd", "=--++="},
		{"Move", "abcd", "bcad", "-==+="},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, b := strings.Split(tt.a, ""), strings.Split(tt.b, "")
			ops := align(a, b)
			var kinds strings.Builder
			for _, o := range ops {
				kinds.WriteByte(o.kind)
				switch o.kind {
				case opEqual:
					if a[o.a] != b[o.b] {
						t.Errorf("equal step pairs %q with %q", a[o.a], b[o.b])
					}
				case opDelete:
					if o.b != -1 {
						t.Errorf("delete step %+v has a b index", o)
					}
				case opInsert:
					if o.a != -1 {
						t.Errorf("insert step %+v has an a index", o)
					}
				}
			}
			if kinds.String() != tt.want {
				t.Errorf("align(%q, %q) = %s, want %s", tt.a, tt.b, kinds.String(), tt.want)
			}
		})
	}
	t.Run("TooLarge", func(t *testing.T) {
		// Past maxAlignCells the differing middle is deleted, then inserted.
		a, b := make([]string, 1100), make([]string, 1100)
		for i := range a {
			a[i], b[i] = "a"+string(rune('0'+i%10)), "b"+string(rune('0'+i%10))
		}
		a[0], b[0] = "same", "same"
		ops := align(a, b)
		if len(ops) != 1+2*1099 || ops[0].kind != opEqual || ops[1].kind != opDelete || ops[len(ops)-1].kind != opInsert {
			t.Errorf("%d steps, first %c %c, last %c", len(ops), ops[0].kind, ops[1].kind, ops[len(ops)-1].kind)
		}
	})
}

func TestGoUnits(t *testing.T) {
	src := `package m

type T[K comparable] struct{}

func (t *T[K]) Get() {}

func (T[K]) Put() {}

func init() {}

func init() {
}

func F() {
	_ = func() {}
}
`
	units, ok := goUnits("m.go", []byte(src))
	if !ok {
		t.Fatal("goUnits failed")
	}
	var got []string
	for _, u := range units {
		got = append(got, fmt.Sprintf("%s %d-%d", u.name, u.start, u.end))
	}
	equalLists(t, "units", got, []string{
		"m.(*T[...]).Get 5-5", "m.T[...].Put 7-7", "m.init 9-9", "m.init#2 11-12", "m.F 14-16",
	})
	if _, ok := goUnits("bad.go", []byte("package m\nfunc {")); ok {
		t.Error("goUnits accepted a file that does not parse")
	}
}
