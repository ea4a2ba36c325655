package watch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestIsOwn(t *testing.T) {
	own := []string{"cands", "db/store.db"}
	for _, tt := range []struct {
		path string
		want bool
	}{
		{"optimizer.toml", true},
		{".optimizer-cache/x", true},
		{"cands", true},
		{"cands/", true},
		{"cands/a.patch", true},
		{"candsx/a.go", false},
		{"db/store.db", true},
		{"db/other", false},
		{"sub/optimizer.toml", false},
		{"main.go", false},
	} {
		t.Run(tt.path, func(t *testing.T) {
			if got := IsOwn(tt.path, "optimizer.toml", own); got != tt.want {
				t.Errorf("IsOwn(%q) = %v, want %v", tt.path, got, tt.want)
			}
		})
	}
}

func TestRel(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	got := Rel(root, []string{filepath.Join(root, "a", "b.db"), filepath.Join(link, "c"), "/elsewhere/d", root})
	if want := []string{"a/b.db", "c", "."}; !slices.Equal(got, want) {
		t.Errorf("Rel = %q, want %q", got, want)
	}
}

// TestDirty: edits, staged files and untracked files are the user's work;
// the optimizer's own paths and editors' temporary files are not, and the
// index is not refreshed.
func TestDirty(t *testing.T) {
	dir := newTestRepo(t, map[string]string{"a.go": "package a\n", "b.go": "package a\n"})
	writeFile(t, dir, "a.go", "package a // edited\n")
	writeFile(t, dir, "c.go", "package a\n")
	git(t, dir, "add", "c.go")
	writeFile(t, dir, "new/d.go", "package d\n")
	writeFile(t, dir, "optimizer.toml", "")
	writeFile(t, dir, "cands/x.patch", "")
	writeFile(t, dir, ".e.go.swp", "")
	index, err := os.Stat(filepath.Join(dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}

	got, err := Dirty(context.Background(), dir, func(p string) bool { return IsOwn(p, "optimizer.toml", []string{"cands"}) })
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.go", "c.go", "new/"}; !slices.Equal(got, want) {
		t.Errorf("Dirty = %q, want %q", got, want)
	}
	if after, err := os.Stat(filepath.Join(dir, ".git", "index")); err != nil || !after.ModTime().Equal(index.ModTime()) {
		t.Errorf("the index changed: %v", err)
	}

	clean := newTestRepo(t, map[string]string{"a.go": "package a\n"})
	if got, err := Dirty(context.Background(), clean, nil); err != nil || len(got) != 0 {
		t.Errorf("Dirty(clean) = %q, %v; want none", got, err)
	}
}
