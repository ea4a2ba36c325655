package worktreepool

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestSlot_Changes reads what a program left in a slot: changed and new
// files with their content, deleted paths, and nothing that git ignores.
func TestSlot_Changes(t *testing.T) {
	ctx := context.Background()
	repo, base := newTestRepo(t)
	p := openPool(t, repo, base, 1, false)
	defer closePool(t, p)
	s, err := p.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release(s)
	if files, deleted, err := s.Changes(ctx); err != nil || len(files) != 0 || len(deleted) != 0 {
		t.Fatalf("a clean slot: %v %v %v; want no change", files, deleted, err)
	}
	write := func(path, data string) {
		full := filepath.Join(s.Dir(), filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.txt", "edited\n")
	write("new/deep/n.txt", "new\n")
	write("x.log", "ignored\n")
	if err := os.Remove(filepath.Join(s.Dir(), "sub", "c.sh")); err != nil {
		t.Fatal(err)
	}
	files, deleted, err := s.Changes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || string(files["a.txt"]) != "edited\n" || string(files["new/deep/n.txt"]) != "new\n" {
		t.Errorf("files = %q; want a.txt and new/deep/n.txt, not the ignored x.log", files)
	}
	if !slices.Equal(deleted, []string{"sub/c.sh"}) {
		t.Errorf("deleted = %q, want [sub/c.sh]", deleted)
	}
}
