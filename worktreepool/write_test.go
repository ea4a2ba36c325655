package worktreepool

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteFiles: deletions come first, so a whole file may replace a
// directory it deletes. No path leaves the tree or enters .git, and a
// symlink out of the tree is not followed.
func TestWriteFiles(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "d", "x"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFiles(dir, map[string][]byte{"d": []byte("now a file\n"), "e/f": []byte("f\n")}, []string{"d"}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "d")); err != nil || string(b) != "now a file\n" {
		t.Errorf("d = %q (%v), want the file that replaced the directory", b, err)
	}
	for _, p := range []string{".git/config", "../x", "/abs", "a/../b"} {
		if err := WriteFiles(dir, map[string][]byte{p: nil}, nil); !errors.Is(err, ErrBadPath) {
			t.Errorf("WriteFiles(%q) = %v, want ErrBadPath", p, err)
		}
	}
	if err := WriteFiles(dir, map[string][]byte{"out/escaped": []byte("x")}, nil); err == nil {
		t.Error("WriteFiles through a symlink out of the tree succeeded")
	}
	if _, err := os.Stat(filepath.Join(outside, "escaped")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file was written outside the tree (stat: %v)", err)
	}
}
