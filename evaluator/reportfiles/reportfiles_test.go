package reportfiles

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPattern: a report path stays inside the repository's copy of the tree.
func TestPattern(t *testing.T) {
	for p, want := range map[string]string{
		"out/junit.xml": "out/junit.xml", `out\junit.xml`: "out/junit.xml", "./a/../r-*.xml": "r-*.xml",
		"/tmp/junit.xml": "", "../junit.xml": "", "a/../../x": "", "": "", "r[.xml": "",
	} {
		got, err := Pattern(p)
		if want == "" {
			if !errors.Is(err, ErrPath) {
				t.Errorf("Pattern(%q) = %q, %v; want ErrPath", p, got, err)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("Pattern(%q) = %q, %v; want %q", p, got, err, want)
		}
	}
}

// TestPatterns: a bad path the user gave is an error naming the flag; a bad
// one detected in the command is left out.
func TestPatterns(t *testing.T) {
	if _, err := Patterns([]string{"ok.xml", "/abs.xml"}, nil, "--test-report"); err == nil || !strings.HasPrefix(err.Error(), "--test-report: ") {
		t.Errorf("a given absolute path: err %v, want one naming --test-report", err)
	}
	got, err := Patterns(nil, []string{"/abs.xml", "r.xml"}, "--test-report")
	if err != nil || !slices.Equal(got, []string{"r.xml"}) {
		t.Errorf("detected: %q, %v; want only r.xml", got, err)
	}
	got, err = Patterns([]string{"given.xml"}, []string{"r.xml"}, "--bench-report")
	if err != nil || !slices.Equal(got, []string{"given.xml"}) {
		t.Errorf("given and detected: %q, %v; want the given one", got, err)
	}
}

// TestClearMatchRead: Clear removes what the patterns match, Match lists
// it sorted once each, and ReadCapped refuses directories and big files.
func TestClearMatchRead(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"r/b.xml", "r/a.xml", "keep.txt"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte("<testsuite/>"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	pats := []string{"r/*.xml", "r/a.xml"}
	if got := Match(root, pats); !slices.Equal(got, []string{"r/a.xml", "r/b.xml"}) {
		t.Errorf("Match = %q, want r/a.xml and r/b.xml once each", got)
	}
	if b, err := ReadCapped(root, "r/a.xml", MaxBytes); err != nil || string(b) != "<testsuite/>" {
		t.Errorf("ReadCapped = %q, %v", b, err)
	}
	if _, err := ReadCapped(root, "r/a.xml", 4); err == nil {
		t.Error("ReadCapped read a file over its limit")
	}
	if _, err := ReadCapped(root, "r", MaxBytes); err == nil {
		t.Error("ReadCapped read a directory")
	}
	if err := Clear(dir, pats); err != nil {
		t.Fatal(err)
	}
	if got := Match(root, pats); len(got) != 0 {
		t.Errorf("after Clear, %q remain", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "keep.txt")); err != nil {
		t.Errorf("Clear removed a file no pattern matches: %v", err)
	}
}
