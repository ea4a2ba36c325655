package candidate

import (
	"errors"
	"slices"
	"testing"
)

func TestValidatePath(t *testing.T) {
	for _, tt := range []struct {
		path, want string // want "" means accepted
	}{
		{"a.go", ""},
		{"dir/sub/a.go", ""},
		{".gitignore", ""},
		{".github/workflows/ci.yml", ""},
		{"a/.gitkeep", ""},
		{"dir with space/x y.go", ""},
		{"..foo", ""},
		{"foo..", ""},
		{"unicodé", ""},
		{`back\slash`, ""},
		{"", `path "" is empty`},
		{"a\x00b", "holds a NUL byte"},
		{"/etc/passwd", "is absolute; give it relative to the repository root"},
		{"//x", "is absolute"},
		{"..", "leaves the repository (..)"},
		{"../x", "leaves the repository (..)"},
		{"a/../../x", "leaves the repository (..)"},
		{"a/..", "leaves the repository (..)"},
		{".git", "is inside .git"},
		{".git/config", `path ".git/config" is inside .git, which candidates may not touch`},
		{".GIT/hooks/pre-commit", "is inside .git"},
		{"vendor/lib/.git/config", "is inside .git"},
		{".", "names no file"},
		{"./a.go", `is not clean; write "a.go"`},
		{"a//b", `is not clean; write "a/b"`},
		{"a/./b", `is not clean; write "a/b"`},
		{"a/", `is not clean; write "a"`},
	} {
		t.Run(tt.path, func(t *testing.T) {
			err := ValidatePath(tt.path)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("ValidatePath(%q) = %v, want nil", tt.path, err)
				}
				return
			}
			mustContain(t, err, tt.want)
			var pe *PathError
			if !errors.As(err, &pe) || !errors.Is(err, ErrBadPath) || pe.Path != tt.path {
				t.Errorf("error %#v is not a *PathError for %q wrapping ErrBadPath", err, tt.path)
			}
		})
	}
}

func TestCandidate_Paths(t *testing.T) {
	for _, tt := range []struct {
		name  string
		patch string
		want  []string
	}{
		{"Git", "diff --git a/x.go b/x.go\nindex 1..2 100644\n--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-a\n+b\n", []string{"x.go"}},
		{"Traditional", "--- a/x.go\t2024-01-01 00:00:00\n+++ b/x.go\t2024-01-02 00:00:00\n@@ -1 +1 @@\n-a\n+b\n", []string{"x.go"}},
		{"OtherPrefixes", "--- old/x.go\n+++ new/x.go\n@@ -1 +1 @@\n-a\n+b\n", []string{"x.go"}},
		{"NewFile", "diff --git a/n.go b/n.go\nnew file mode 100644\n--- /dev/null\n+++ b/n.go\n@@ -0,0 +1 @@\n+x\n", []string{"n.go"}},
		{"Deleted", "diff --git a/d.go b/d.go\ndeleted file mode 100644\n--- a/d.go\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n", []string{"d.go"}},
		{"Rename", "diff --git a/old.go b/new.go\nsimilarity index 100%\nrename from old.go\nrename to new.go\n", []string{"new.go", "old.go"}},
		{"RenameWithSpaces", "diff --git a/o l d.go b/n e w.go\nrename from o l d.go\nrename to n e w.go\n", []string{"n e w.go", "o l d.go"}},
		{"Copy", "diff --git a/a.go b/c.go\ncopy from a.go\ncopy to c.go\n", []string{"a.go", "c.go"}},
		{"ModeOnly", "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n", []string{"run.sh"}},
		{"EmptyNewFile", "diff --git a/empty b/empty\nnew file mode 100644\nindex 0000000..e69de29\n", []string{"empty"}},
		{"SpacesUnquoted", "diff --git a/my file.go b/my file.go\n--- a/my file.go\n+++ b/my file.go\n@@ -1 +1 @@\n-a\n+b\n", []string{"my file.go"}},
		{"SpacesGitLineOnly", "diff --git a/my file b/my file\nold mode 100644\nnew mode 100755\n", []string{"my file"}},
		{"Quoted", "diff --git \"a/t\\tab\\303\\251.go\" \"b/t\\tab\\303\\251.go\"\n--- \"a/t\\tab\\303\\251.go\"\n+++ \"b/t\\tab\\303\\251.go\"\n@@ -1 +1 @@\n-a\n+b\n", []string{"t\tabé.go"}},
		{"QuotedGitLineOnly", "diff --git \"a/q\\\"x\" \"b/q\\\"x\"\nold mode 100644\nnew mode 100755\n", []string{`q"x`}},
		{"HunkLinesLookLikeHeaders", "--- a/x.sql\n+++ b/x.sql\n@@ -1,3 +1,3 @@\n--- comment\n+++ added\n -- ctx\n-diff --git a/evil b/evil\n+x\n", []string{"x.sql"}},
		{"TwoFiles", "--- a/b.go\n+++ b/b.go\n@@ -1,2 +1,2 @@\n x\n-y\n+z\n--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-p\n+q\n", []string{"a.go", "b.go"}},
		{"NoNewlineMarker", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n", []string{"x", "y"}},
		{"MailPreamble", "From 123 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] x\n\n---\n x.go | 2 +-\n 1 file changed\n\ndiff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-a\n+b\n-- \n2.39.5\n", []string{"x.go"}},
		{"CRLF", "--- a/x\r\n+++ b/x\r\n@@ -1 +1 @@\r\n-a\r\n+b\r\n", []string{"x"}},
		{"Absolute", "--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n", []string{"/etc/passwd"}},
		{"DotDot", "diff --git a/../x b/../x\n--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-a\n+b\n", []string{"../x"}},
		{"NotADiff", "just some text\nwith --- dashes\n", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := Candidate{Patch: []byte(tt.patch)}.Paths()
			if !slices.Equal(got, tt.want) {
				t.Errorf("Paths() = %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("FilesAndDeleted", func(t *testing.T) {
		c := Candidate{
			Patch:   []byte("--- a/p.go\n+++ b/p.go\n@@ -1 +1 @@\n-a\n+b\n"),
			Files:   map[string][]byte{"z.go": nil, "a.go": nil, "p.go": nil},
			Deleted: []string{"m.go"},
		}
		if got, want := c.Paths(), []string{"a.go", "m.go", "p.go", "z.go"}; !slices.Equal(got, want) {
			t.Errorf("Paths() = %q, want %q", got, want)
		}
	})
}

func TestScanPatch_Binary(t *testing.T) {
	for _, tt := range []struct {
		name, patch, want string
	}{
		{"GitBinaryPatch", "diff --git a/img.png b/img.png\nindex 1..2 100644\nGIT binary patch\nliteral 5\nMcmZ?wbaHS200AQa2><5X\n\nliteral 0\nHcmV?d00001\n\n", "img.png"},
		{"BinaryFilesDiffer", "diff --git a/x.bin b/x.bin\nindex 1..2 100644\nBinary files a/x.bin and b/x.bin differ\n", "x.bin"},
		{"BinaryFilesDifferNew", "Binary files /dev/null and b/new.bin differ\n", "new.bin"},
		{"BinaryFilesDifferDeleted", "Binary files a/old.bin and /dev/null differ\n", "old.bin"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			info := scanPatch([]byte(tt.patch))
			if !slices.Equal(info.binary, []string{tt.want}) {
				t.Errorf("binary = %q, want [%q]", info.binary, tt.want)
			}
		})
	}
}
