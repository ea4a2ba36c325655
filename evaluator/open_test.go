package evaluator

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/worktreepool"
)

// TestOpenWork: the store and the pool open together, a corrupt store is
// moved aside first (and the caller told), and Close removes the slots and
// closes the store.
func TestOpenWork(t *testing.T) {
	ctx := context.Background()
	repo, base := newTestRepo(t, shellRepo)
	path := filepath.Join(t.TempDir(), "optimizer.db")
	if err := os.WriteFile(path, []byte(strings.Repeat("not a database\n", 500)), 0o644); err != nil {
		t.Fatal(err)
	}
	var aside string
	w, err := OpenWork(ctx, path, func(_, a string, _ error) { aside = a }, worktreepool.Options{
		Repo: repo, Base: base, Size: 1, Dir: filepath.Join(t.TempDir(), "slots"), MachineLock: filepath.Join(t.TempDir(), "lock"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(aside, path+".corrupt-") {
		t.Errorf("moved aside to %q, want %s.corrupt-…", aside, path)
	}
	if _, err := w.DB.Jobs(ctx, 0); err != nil {
		t.Errorf("the new store: %v", err)
	}
	s, err := w.Pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dir := s.Dir()
	w.Pool.Release(s)
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("slot %s after Close: %v, want removed", dir, err)
	}
	if _, err := w.DB.Jobs(ctx, 0); err == nil {
		t.Error("the store is open after Close")
	}

	if _, err := OpenWork(ctx, path, nil, worktreepool.Options{Repo: t.TempDir(), Base: base, Size: 1}); err == nil ||
		!strings.HasPrefix(err.Error(), "open slot pool: ") {
		t.Errorf("OpenWork outside a repository = %v, want open slot pool: …", err)
	}
}
