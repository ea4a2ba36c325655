package optimize

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/testdata"
)

// btreeLike is laid out as google/btree is. The same type and methods are
// in two files, one for Go 1.18 and later and one for before, told apart by
// their build constraints. A third file is for another GOOS.
var btreeLike = map[string]string{
	"go.mod": "module example.com/b\n\ngo 1.22\n",
	"b/generic.go": `//go:build go1.18

package b

type items []int

func (s items) find(x int) int { return len(s) + x }

// Has reports whether s holds x.
func Has(s []int, x int) bool { return items(s).find(x) >= 0 }
`,
	"b/old.go": `//go:build !go1.18

package b

type items []int

func (s items) find(x int) int { return x }

func Old() {}
`,
	"b/b_plan9.go": "package b\n\nfunc Plan9() {}\n",
}

// TestResolveTargets_Methods: file.go:find, meant for the method
// items.find, is refused with a suggestion of it; a file its build
// constraints exclude is not counted, so items.find is one function.
func TestResolveTargets_Methods(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "repo")
	for name, body := range btreeLike {
		p := filepath.Join(repo, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base, err := testdata.InitRepo(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ spec, want, err string }{
		{spec: "generic.go:find", err: "did you mean generic.go:items.find?"},
		{spec: "b.find", err: "did you mean b.items.find?"},
		{spec: "b.has", err: "did you mean b.Has?"},
		{spec: "generic.go:items.find", want: "b.items.find"},
		{spec: "items.find", want: "b.items.find"}, // old.go's is not built
		{spec: "Old", err: "no such function"},
		{spec: "Plan9", err: "no such function"},
	} {
		t.Run(tt.spec, func(t *testing.T) {
			got, err := ResolveTargets(context.Background(), repo, base, []string{tt.spec})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.Is(err, ErrNoTarget) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if g := got[0]; g.Name != tt.want || g.File != "b/generic.go" {
				t.Errorf("got %s in %s, want %s in b/generic.go", g.Name, g.File, tt.want)
			}
		})
	}
}
