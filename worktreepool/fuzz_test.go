package worktreepool

import (
	"path/filepath"
	"strings"
	"testing"
)

// FuzzCheckPath: a path that checkPath lets through stays inside the slot
// and out of .git, however it is spelled.
func FuzzCheckPath(f *testing.F) {
	for _, s := range []string{"a.txt", "sub/b.txt", "../x", "/abs", ".git/config", "a/.GIT/x", "a//b", "./a", "a/..", "", "x\x00y", `\evil`, "..."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if checkPath(p) != nil {
			return
		}
		root := "/slot"
		full := filepath.Join(root, filepath.FromSlash(p))
		if !strings.HasPrefix(full, root+"/") {
			t.Fatalf("%q passes but lands at %s", p, full)
		}
		for _, part := range strings.Split(strings.TrimPrefix(full, root+"/"), "/") {
			if strings.EqualFold(part, ".git") || part == ".." {
				t.Fatalf("%q passes but goes through %q", p, part)
			}
		}
	})
}
