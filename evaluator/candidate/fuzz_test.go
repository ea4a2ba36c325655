package candidate

import (
	"bytes"
	"errors"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// FuzzParseJSONL checks that any input parses without panicking. It gives
// either a *SyntaxError with a line number or candidates that keep the
// package's promises: a name, a source with the line, one form of change.
// No path that ValidatePath refuses appears unless the candidate is Invalid.
// More seeds are in testdata/fuzz/FuzzParseJSONL.
func FuzzParseJSONL(f *testing.F) {
	f.Add([]byte(`{"name":"a","patch":"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"}` + "\n"))
	f.Add([]byte(`{"name":"b","files":{"x.go":"package x\n","old.go":null},"parent":"a","explanation":"e"}`))
	f.Add([]byte("\xef\xbb\xbf" + `{"name":"c","files":{"../x":"y"}}` + "\r\n\r\n" + `{"name":"d","patch":"hi"}`))
	f.Add([]byte(`{"name":"e","patch":"x","files":{}}`))
	f.Add([]byte(`[1]` + "\n" + `{"name":`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cands, err := ParseJSONL(bytes.NewReader(data), "f.jsonl")
		if err != nil {
			var syn *SyntaxError
			if !errors.As(err, &syn) || syn.Line < 1 || syn.File != "f.jsonl" || !strings.HasPrefix(err.Error(), "f.jsonl:") {
				t.Fatalf("error %#v is not a *SyntaxError with a line", err)
			}
			if cands != nil {
				t.Fatal("candidates returned with an error")
			}
			return
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, c := range cands {
			if c.Name == "" || !strings.HasPrefix(c.Source, "f.jsonl:") {
				t.Fatalf("bad name or source: %q %q", c.Name, c.Source)
			}
			if hasPatch, hasFiles := c.Patch != nil, c.Files != nil; hasPatch && hasFiles {
				t.Fatalf("%s has both a patch and files", c.Source)
			}
			paths := c.Paths()
			if len(c.Deleted) > 0 && c.Files == nil {
				t.Fatalf("%s deletes without files", c.Source)
			}
			if c.Invalid != nil {
				if !strings.HasPrefix(c.Invalid.Error(), c.Source+": ") {
					t.Fatalf("Invalid %q does not start with the source", c.Invalid)
				}
				continue
			}
			for _, p := range paths {
				if err := ValidatePath(p); err != nil {
					t.Fatalf("%s: valid candidate has path %q: %v", c.Source, p, err)
				}
			}
		}
		if len(cands) > lines {
			t.Fatalf("%d candidates from %d lines", len(cands), lines)
		}
	})
}

// FuzzPaths checks that the patch header scanner never panics, returns
// sorted unique non-empty paths, and that a patch Validate accepts touches
// only paths ValidatePath accepts. More seeds are in testdata/fuzz/FuzzPaths.
func FuzzPaths(f *testing.F) {
	f.Add([]byte("diff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n@@ -1,2 +1,2 @@\n x\n-a\n+b\n"))
	f.Add([]byte("diff --git \"a/t\\tab\" \"b/t\\tab\"\nold mode 100644\nnew mode 100755\n"))
	f.Add([]byte("diff --git a/o b/n\nrename from o\nrename to n\n--- a/o\n+++ b/n\n@@ -1 +1 @@\n-a\n+b\n"))
	f.Add([]byte("--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n--- y\n+++ z\n \\ No newline\n"))
	f.Add([]byte("diff --git a/i b/i\nGIT binary patch\nliteral 1\nIcmZ?d00001\n"))
	f.Add([]byte("Binary files a/x and /dev/null differ\n--- /etc/passwd\n+++ b/../x\n@@ -1 +1 @@\n"))
	f.Fuzz(func(t *testing.T, patch []byte) {
		c := Candidate{Patch: patch}
		paths := c.Paths()
		if !slices.IsSorted(paths) || len(slices.Compact(slices.Clone(paths))) != len(paths) {
			t.Fatalf("paths not sorted and unique: %q", paths)
		}
		for _, p := range paths {
			if p == "" || p == "/dev/null" {
				t.Fatalf("paths hold %q", p)
			}
		}
		if err := c.Validate(); err == nil {
			for _, p := range paths {
				if err := ValidatePath(p); err != nil {
					t.Fatalf("Validate accepted a patch touching %q: %v", p, err)
				}
			}
			if len(bytes.TrimSpace(patch)) > 0 && len(paths) == 0 {
				t.Fatalf("Validate accepted a patch with no paths")
			}
		}
	})
}

// FuzzValidatePath checks that a path ValidatePath accepts stays inside the
// directory it is joined to and keeps out of .git. More seeds are in
// testdata/fuzz/FuzzValidatePath.
func FuzzValidatePath(f *testing.F) {
	for _, s := range []string{"a.go", "../x", "/etc/passwd", ".git/config", "a/./b", "a//b", "x\x00y", "C:/x", `..\x`, ".GiT", "a/.git/b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		err := ValidatePath(p)
		if err != nil {
			var pe *PathError
			if !errors.As(err, &pe) || pe.Path != p || !errors.Is(err, ErrBadPath) {
				t.Fatalf("error %#v is not a *PathError", err)
			}
			return
		}
		const root = "/repo/root"
		full := filepath.Join(root, filepath.FromSlash(p))
		if !strings.HasPrefix(full, root+string(filepath.Separator)) {
			t.Fatalf("accepted %q escapes to %q", p, full)
		}
		if !filepath.IsLocal(p) || path.Clean(p) != p || strings.IndexByte(p, 0) >= 0 {
			t.Fatalf("accepted %q is not a clean local path", p)
		}
		for _, elem := range strings.Split(p, "/") {
			if elem == ".." || elem == "." || elem == "" || strings.EqualFold(elem, ".git") {
				t.Fatalf("accepted %q has element %q", p, elem)
			}
		}
	})
}
