package perm

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func mode(tb testing.TB, path string) fs.FileMode {
	tb.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return fi.Mode().Perm()
}

// TestPrivate: a new directory is 0700 with its parents; an existing one
// that others may read is tightened; files lose group and other bits.
func TestPrivate(t *testing.T) {
	dir := t.TempDir()
	nested := filepath.Join(dir, "a", "b")
	if err := PrivateDir(nested); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Join(dir, "a"), nested} {
		if m := mode(t, d); m != 0o700 {
			t.Errorf("%s: mode %v, want 0700", d, m)
		}
	}
	open := filepath.Join(dir, "open")
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(open, 0o777)
	if err := PrivateDir(open); err != nil {
		t.Fatal(err)
	}
	if m := mode(t, open); m != 0o700 {
		t.Errorf("an existing 0777 directory is %v after PrivateDir, want 0700", m)
	}
	f := filepath.Join(dir, "f")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(f, 0o644)
	if err := PrivateFile(f); err != nil {
		t.Fatal(err)
	}
	if m := mode(t, f); m != 0o600 {
		t.Errorf("a 0644 file is %v after PrivateFile, want 0600", m)
	}
	if err := PrivateFile(filepath.Join(dir, "missing")); err != nil {
		t.Errorf("a missing file: %v", err)
	}
}
