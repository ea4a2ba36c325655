package candidate

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
)

const goodPatch = "diff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-a\n+b\n"

// mkdir writes files (content "->TARGET" makes a symlink) under a new temp
// dir and returns it.
func mkdir(tb testing.TB, files map[string]string) string {
	tb.Helper()
	dir := tb.TempDir()
	for p, s := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tb.Fatal(err)
		}
		var err error
		switch {
		case strings.HasSuffix(p, "/"):
			err = os.MkdirAll(full, 0o755)
		case strings.HasPrefix(s, "->"):
			err = os.Symlink(strings.TrimPrefix(s, "->"), full)
		default:
			err = os.WriteFile(full, []byte(s), 0o644)
		}
		if err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

func jsonLine(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b) + "\n"
}

func TestLoad_Directory(t *testing.T) {
	dir := mkdir(t, map[string]string{
		"b.patch":        goodPatch,
		"a.diff":         goodPatch,
		"Z.PATCH":        goodPatch,
		"c/x.go":         "package x\n",
		"c/.gitignore":   "*.o\n",
		"c/sub/y.go":     "package sub\n",
		"c/sub/link.go":  "->y.go",
		"d.jsonl":        `{"name":"j1","patch":` + jsonString(goodPatch) + `,"parent":"a","explanation":"why","score":0.9}` + "\r\n\r\n" + `{"name":"j2","files":{"x.go":"new\n","old.go":null}}`,
		"e":              "->c",
		"README.md":      "# candidates\n",
		"notes.txt":      "ideas\n",
		".hidden.patch":  goodPatch,
		".git/HEAD":      "ref: refs/heads/main\n",
		"fast.patch~":    goodPatch,
		"f.jsonl.orig":   "not json",
		"g.Diff":         goodPatch,
		"fifo-is-hidden": "",
	})
	cands, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	tree := map[string][]byte{"x.go": []byte("package x\n"), ".gitignore": []byte("*.o\n"),
		"sub/y.go": []byte("package sub\n"), "sub/link.go": []byte("package sub\n")}
	j := func(s string) string { return filepath.Join(dir, s) }
	want := []Candidate{
		{Name: "Z", Source: j("Z.PATCH"), Patch: []byte(goodPatch)},
		{Name: "a", Source: j("a.diff"), Patch: []byte(goodPatch)},
		{Name: "b", Source: j("b.patch"), Patch: []byte(goodPatch)},
		{Name: "c", Source: j("c") + "/", Files: tree},
		{Name: "j1", Source: j("d.jsonl") + ":1", Patch: []byte(goodPatch), Parent: "a", Explanation: "why"},
		{Name: "j2", Source: j("d.jsonl") + ":3", Files: map[string][]byte{"x.go": []byte("new\n")}, Deleted: []string{"old.go"}},
		{Name: "e", Source: j("e") + "/", Files: tree},
		{Name: "g", Source: j("g.Diff"), Patch: []byte(goodPatch)},
	}
	if !reflect.DeepEqual(cands, want) {
		t.Errorf("Load:\n%s\nwant\n%s", dump(cands), dump(want))
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func dump(cands []Candidate) string {
	var b strings.Builder
	for _, c := range cands {
		files := map[string]string{}
		for p, v := range c.Files {
			files[p] = string(v)
		}
		x, _ := json.Marshal(struct {
			Name, Source, Patch string
			Files               map[string]string
			Deleted             []string
			Parent, Expl        string
			Invalid             error
		}{c.Name, c.Source, string(c.Patch), files, c.Deleted, c.Parent, c.Explanation, c.Invalid})
		b.Write(x)
		b.WriteByte('\n')
	}
	return b.String()
}

func TestLoad_SingleFile(t *testing.T) {
	dir := mkdir(t, map[string]string{
		"fast.patch": goodPatch,
		"set.jsonl":  jsonLine(t, map[string]any{"name": "one", "patch": goodPatch}) + jsonLine(t, map[string]any{"name": "two", "files": map[string]string{"x.go": "b\n"}}),
	})
	cands, err := Load(filepath.Join(dir, "fast.patch"))
	if err != nil || len(cands) != 1 || cands[0].Name != "fast" || cands[0].Invalid != nil {
		t.Fatalf("Load(fast.patch) = %s, %v", dump(cands), err)
	}
	cands, err = Load(filepath.Join(dir, "set.jsonl"))
	if err != nil || len(cands) != 2 || cands[0].Name != "one" || cands[1].Name != "two" || cands[1].Source != filepath.Join(dir, "set.jsonl")+":2" {
		t.Fatalf("Load(set.jsonl) = %s, %v", dump(cands), err)
	}
}

func TestLoad_JobErrors(t *testing.T) {
	outside := mkdir(t, map[string]string{"x.jsonl": jsonLine(t, map[string]any{"name": "x", "patch": goodPatch})})
	line := func(v map[string]any) string { return jsonLine(t, v) }
	for _, tt := range []struct {
		name  string
		files map[string]string // under a new dir; "" key: no dir at all
		path  string            // relative to the dir; "" is the dir
		want  string            // substring, with DIR for the dir
		is    error
	}{
		{name: "Missing", files: map[string]string{}, path: "nope", want: "read candidates: stat DIR/nope: no such file or directory", is: os.ErrNotExist},
		{name: "EmptyDir", files: map[string]string{}, want: "no candidates in DIR: want NAME.patch or NAME.diff files, NAME/ directories of whole files, or .jsonl files", is: ErrNoCandidates},
		{name: "OnlyIgnored", files: map[string]string{"README.md": "x", "fast.txt": "x", ".a.patch": goodPatch}, want: "no candidates in DIR: want NAME.patch or NAME.diff files, NAME/ directories of whole files, or .jsonl files; ignored README.md, fast.txt", is: ErrNoCandidates},
		{name: "ManyIgnored", files: map[string]string{"1": "", "2": "", "3": "", "4": "", "5": "", "6": "", "7": ""}, want: "; ignored 1, 2, 3, 4, 5 and 2 more", is: ErrNoCandidates},
		{name: "EmptyJSONLInDir", files: map[string]string{"a.jsonl": "\n\n"}, want: "no candidates in DIR", is: ErrNoCandidates},
		{name: "EmptyJSONL", files: map[string]string{"a.jsonl": ""}, path: "a.jsonl", want: "no candidates in DIR/a.jsonl: the file holds no line", is: ErrNoCandidates},
		{name: "UnsupportedFile", files: map[string]string{"x.txt": goodPatch}, path: "x.txt", want: "read candidates: DIR/x.txt is not a .patch, .diff or .jsonl file, nor a directory"},
		{name: "MalformedJSONL", files: map[string]string{"c.jsonl": line(map[string]any{"name": "a", "patch": goodPatch}) + `{"name": "b", "patch": ` + "\n"}, want: "DIR/c.jsonl:2: invalid JSON at column 23: unexpected end of JSON input"},
		{name: "MalformedJSONLSingleFile", files: map[string]string{"c.jsonl": "\n\n{name: 1}\n"}, path: "c.jsonl", want: "DIR/c.jsonl:3: invalid JSON at column 2: invalid character 'n' looking for beginning of object key string"},
		{name: "TrailingGarbage", files: map[string]string{"c.jsonl": `{"name":"a","patch":"x"} x`}, want: "DIR/c.jsonl:1: invalid JSON at column"},
		{name: "NotObject", files: map[string]string{"c.jsonl": "[1, 2]\n"}, want: "DIR/c.jsonl:1: want a JSON object, got an array"},
		{name: "MissingName", files: map[string]string{"c.jsonl": line(map[string]any{"patch": goodPatch})}, want: `DIR/c.jsonl:1: missing "name"`},
		{name: "EmptyName", files: map[string]string{"c.jsonl": line(map[string]any{"name": "", "patch": goodPatch})}, want: `DIR/c.jsonl:1: "name" is empty`},
		{name: "NameNotString", files: map[string]string{"c.jsonl": `{"name": 7, "patch": "x"}`}, want: `DIR/c.jsonl:1: "name" is a number, want a string`},
		{name: "PatchNotString", files: map[string]string{"c.jsonl": `{"name": "a", "patch": ["x"]}`}, want: `DIR/c.jsonl:1: "patch" is an array, want a string`},
		{name: "FilesNotObject", files: map[string]string{"c.jsonl": `{"name": "a", "files": ["x.go"]}`}, want: `DIR/c.jsonl:1: "files" is an array, want an object`},
		{name: "FileContentNotString", files: map[string]string{"c.jsonl": `{"name": "a", "files": {"x.go": 3}}`}, want: `DIR/c.jsonl:1: "files" entry "x.go" is a number, want a string (or null to delete the file)`},
		{name: "Both", files: map[string]string{"c.jsonl": "\n" + line(map[string]any{"name": "a", "patch": goodPatch}) + line(map[string]any{"name": "x", "patch": goodPatch, "files": map[string]string{"x.go": "y"}})}, want: `DIR/c.jsonl:3: candidate "x" has both "patch" and "files"; give one`},
		{name: "Neither", files: map[string]string{"c.jsonl": line(map[string]any{"name": "x", "explanation": "e"})}, want: `DIR/c.jsonl:1: candidate "x" has neither "patch" nor "files"`},
		{name: "NullPatchNoFiles", files: map[string]string{"c.jsonl": `{"name": "x", "patch": null}`}, want: `DIR/c.jsonl:1: candidate "x" has neither "patch" nor "files"`},
		{name: "DuplicateAcrossForms", files: map[string]string{"fast.patch": goodPatch, "fast/x.go": "y"}, want: `duplicate candidate name: "fast" in DIR/fast/ and DIR/fast.patch; names must be unique across all candidates`, is: ErrDuplicateName},
		{name: "DuplicatePatchAndDiff", files: map[string]string{"fast.patch": goodPatch, "fast.diff": goodPatch}, want: `"fast" in DIR/fast.diff and DIR/fast.patch`, is: ErrDuplicateName},
		{name: "DuplicateInJSONL", files: map[string]string{"c.jsonl": line(map[string]any{"name": "x", "patch": goodPatch}) + line(map[string]any{"name": "x", "patch": goodPatch})}, want: `"x" in DIR/c.jsonl:1 and DIR/c.jsonl:2`, is: ErrDuplicateName},
		{name: "DuplicateJSONLAndPatch", files: map[string]string{"a.jsonl": line(map[string]any{"name": "b", "patch": goodPatch}), "b.patch": goodPatch}, want: `"b" in DIR/a.jsonl:1 and DIR/b.patch`, is: ErrDuplicateName},
		{name: "ControlCharacterName", files: map[string]string{"c.jsonl": line(map[string]any{"name": "a\nb", "patch": goodPatch})}, want: `bad candidate name: "a\nb" (from DIR/c.jsonl:1) holds a control character`, is: ErrBadName},
		{name: "JSONLSymlinkOutside", files: map[string]string{"x.jsonl": "->" + filepath.Join(outside, "x.jsonl")}, want: "read candidates: bad symlink: x.jsonl points outside the candidate directory, to " + outside, is: ErrSymlink},
		{name: "DanglingSymlink", files: map[string]string{"a.patch": "->nowhere.patch"}, want: "read candidates: stat DIR/a.patch: no such file or directory"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := mkdir(t, tt.files)
			cands, err := Load(filepath.Join(dir, tt.path))
			mustContain(t, err, strings.ReplaceAll(tt.want, "DIR", dir))
			if cands != nil {
				t.Errorf("got candidates with the error: %s", dump(cands))
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v is not %v", err, tt.is)
			}
			var syn *SyntaxError
			if strings.Contains(tt.want, ".jsonl:") && tt.is == nil && (!errors.As(err, &syn) || syn.Line == 0) {
				t.Errorf("error %#v is not a *SyntaxError with a line", err)
			}
		})
	}
}

func TestLoad_Unreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads everything")
	}
	dir := mkdir(t, map[string]string{"a.patch": goodPatch, "t/x.go": "x"})
	for _, p := range []string{"a.patch", "t/x.go"} {
		t.Run(p, func(t *testing.T) {
			full := filepath.Join(dir, p)
			if err := os.Chmod(full, 0); err != nil {
				t.Fatal(err)
			}
			defer os.Chmod(full, 0o644)
			_, err := Load(dir)
			mustContain(t, err, "read candidates: open "+full+": permission denied")
		})
	}
}

func TestLoad_Invalid(t *testing.T) {
	outside := mkdir(t, map[string]string{"secret": "password\n", "cands/x.go": "x"})
	sparse := func(size int64) string { return "SPARSE" + string(rune('0'+size>>20-50)) }
	for _, tt := range []struct {
		name  string
		files map[string]string // the bad candidate is named "bad"
		want  string            // substring of Invalid, with DIR for the dir
		is    error
	}{
		{"PatchDotDot", map[string]string{"bad.patch": "diff --git a/../x b/../x\n--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-a\n+b\n"}, `DIR/bad.patch: path "../x" leaves the repository (..)`, ErrBadPath},
		{"PatchAbsolute", map[string]string{"bad.patch": "--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n"}, `DIR/bad.patch: path "/etc/passwd" is absolute; give it relative to the repository root`, ErrBadPath},
		{"PatchGitDir", map[string]string{"bad.patch": "diff --git a/.git/config b/.git/config\n--- a/.git/config\n+++ b/.git/config\n@@ -1 +1 @@\n-a\n+b\n"}, `DIR/bad.patch: path ".git/config" is inside .git, which candidates may not touch`, ErrBadPath},
		{"PatchRenameOutOfTree", map[string]string{"bad.patch": "diff --git a/x b/y\nrename from x\nrename to ../y\n"}, `path "../y" leaves the repository`, ErrBadPath},
		{"GitBinaryPatch", map[string]string{"bad.patch": "diff --git a/img.png b/img.png\nindex 1..2 100644\nGIT binary patch\nliteral 5\nMcmZ?wbaHS200AQa2><5X\n\nliteral 0\nHcmV?d00001\n\n"}, "DIR/bad.patch: binary patch: img.png changes as binary data, which a text patch cannot carry; give the whole file in a candidate directory or a JSONL \"files\" entry instead", ErrBinaryPatch},
		{"BinaryFilesDiffer", map[string]string{"bad.diff": "diff --git a/x.bin b/x.bin\nindex 1..2 100644\nBinary files a/x.bin and b/x.bin differ\n"}, "DIR/bad.diff: binary patch: x.bin changes as binary data", ErrBinaryPatch},
		{"NotADiff", map[string]string{"bad.patch": "I made it faster by caching.\n"}, `DIR/bad.patch: not a diff: found no file header (a "diff --git" line, or a "--- a/PATH" line followed by "+++ b/PATH")`, ErrNotDiff},
		{"HeaderWithoutNames", map[string]string{"bad.patch": "diff --git \n"}, "DIR/bad.patch: not a diff: its file headers name no file", ErrNotDiff},
		{"EmptyPatch", map[string]string{"bad.patch": ""}, "DIR/bad.patch: empty candidate: it changes no file", ErrEmpty},
		{"BlankPatch", map[string]string{"bad.patch": "\n  \n"}, "DIR/bad.patch: empty candidate: the patch is empty", ErrEmpty},
		{"PatchTooLarge", map[string]string{"bad.patch": sparse(51 << 20)}, "DIR/bad.patch: candidate too large: it holds 51.0 MB, over the 50 MB limit for one candidate", ErrTooLarge},
		{"PatchSymlinkOutside", map[string]string{"bad.patch": "->" + filepath.Join(outside, "secret")}, "DIR/bad.patch: bad symlink: bad.patch points outside the candidate directory, to " + outside + "/secret", ErrSymlink},
		{"TreeSymlinkOutside", map[string]string{"bad/x.go": "x", "bad/secret": "->" + filepath.Join(outside, "secret")}, "DIR/bad/: bad symlink: secret points outside the candidate directory, to " + outside + "/secret", ErrSymlink},
		{"TreeSymlinkRelativeOutside", map[string]string{"bad/x.go": "x", "bad/sub/up": "->../../ok.patch"}, "DIR/bad/: bad symlink: sub/up points outside the candidate directory, to DIR/ok.patch", ErrSymlink},
		{"TreeSymlinkDangling", map[string]string{"bad/x.go": "x", "bad/dangle": "->nowhere"}, "DIR/bad/: bad symlink: dangle points to nothing", ErrSymlink},
		{"TreeSymlinkToDir", map[string]string{"bad/x/y.go": "y", "bad/link": "->x"}, "DIR/bad/: bad symlink: link points to a directory; only links to files are followed", ErrSymlink},
		{"TreeDirSymlinkOutside", map[string]string{"bad": "->" + filepath.Join(outside, "cands")}, "DIR/bad/: bad symlink: bad points outside the candidate directory", ErrSymlink},
		{"TreeGitDir", map[string]string{"bad/x.go": "x", "bad/.git/config": "[core]"}, `DIR/bad/: path ".git" is inside .git`, ErrBadPath},
		{"TreeNestedGitDir", map[string]string{"bad/vendor/lib/.GIT/config": "[core]"}, `DIR/bad/: path "vendor/lib/.GIT" is inside .git`, ErrBadPath},
		{"TreeEmpty", map[string]string{"bad/": "", "bad/sub/": ""}, "DIR/bad/: empty candidate: the directory holds no files", ErrEmpty},
		{"TreeFIFO", map[string]string{"bad/x.go": "x", "bad/pipe": "FIFO"}, "DIR/bad/: not a regular file: pipe is a device, socket or pipe", ErrNotRegular},
		{"TreeTooLarge", map[string]string{"bad/a.go": "x", "bad/big.bin": sparse(51 << 20)}, "DIR/bad/: candidate too large: it holds 51.0 MB, over the 50 MB limit for one candidate", ErrTooLarge},
		{"JSONLFileDotDot", map[string]string{"c.jsonl": jsonLine(t, map[string]any{"name": "bad", "files": map[string]string{"../x": "a"}})}, `DIR/c.jsonl:1: path "../x" leaves the repository (..)`, ErrBadPath},
		{"JSONLFileAbsolute", map[string]string{"c.jsonl": jsonLine(t, map[string]any{"name": "bad", "files": map[string]string{"/tmp/x": "a"}})}, `DIR/c.jsonl:1: path "/tmp/x" is absolute`, ErrBadPath},
		{"JSONLFileGitDir", map[string]string{"c.jsonl": jsonLine(t, map[string]any{"name": "bad", "files": map[string]string{".git/hooks/pre-commit": "rm -rf /"}})}, `DIR/c.jsonl:1: path ".git/hooks/pre-commit" is inside .git`, ErrBadPath},
		{"JSONLDeleteDotDot", map[string]string{"c.jsonl": `{"name":"bad","files":{"a.go":"x","../x":null}}`}, `DIR/c.jsonl:1: path "../x" leaves the repository`, ErrBadPath},
		{"JSONLFileNotClean", map[string]string{"c.jsonl": jsonLine(t, map[string]any{"name": "bad", "files": map[string]string{"./a.go": "a"}})}, `DIR/c.jsonl:1: path "./a.go" is not clean; write "a.go"`, ErrBadPath},
		{"JSONLNotDiff", map[string]string{"c.jsonl": jsonLine(t, map[string]any{"name": "bad", "patch": "use a map"})}, "DIR/c.jsonl:1: not a diff", ErrNotDiff},
		{"JSONLEmptyPatch", map[string]string{"c.jsonl": jsonLine(t, map[string]any{"name": "bad", "patch": ""})}, "DIR/c.jsonl:1: empty candidate: it changes no file", ErrEmpty},
		{"JSONLEmptyFiles", map[string]string{"c.jsonl": jsonLine(t, map[string]any{"name": "bad", "files": map[string]string{}})}, "DIR/c.jsonl:1: empty candidate: it changes no file", ErrEmpty},
	} {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"ok.patch": goodPatch}
			var special []string
			for p, s := range tt.files {
				if strings.HasPrefix(s, "SPARSE") || s == "FIFO" {
					special = append(special, p)
					continue
				}
				files[p] = s
			}
			dir := mkdir(t, files)
			for _, p := range special {
				full := filepath.Join(dir, filepath.FromSlash(p))
				if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
					t.Fatal(err)
				}
				if tt.files[p] == "FIFO" {
					if err := syscall.Mkfifo(full, 0o644); err != nil {
						t.Skip("no fifo:", err)
					}
					continue
				}
				if err := os.WriteFile(full, nil, 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Truncate(full, 51<<20); err != nil {
					t.Fatal(err)
				}
			}
			cands, err := Load(dir)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			var bad, ok *Candidate
			for i := range cands {
				switch cands[i].Name {
				case "bad":
					bad = &cands[i]
				case "ok":
					ok = &cands[i]
				}
			}
			if bad == nil || ok == nil || len(cands) != 2 {
				t.Fatalf("want candidates bad and ok, got %s", dump(cands))
			}
			if ok.Invalid != nil {
				t.Errorf("ok is Invalid: %v", ok.Invalid)
			}
			mustContain(t, bad.Invalid, strings.ReplaceAll(tt.want, "DIR", dir))
			if !errors.Is(bad.Invalid, tt.is) {
				t.Errorf("Invalid %v is not %v", bad.Invalid, tt.is)
			}
			if errors.Is(bad.Invalid, ErrTooLarge) && (bad.Files != nil || bad.Patch != nil) {
				t.Errorf("a candidate over the limit keeps %d files and a %d-byte patch", len(bad.Files), len(bad.Patch))
			}
		})
	}
}

func TestParseJSONL_LineTooLong(t *testing.T) {
	in := `{"name":"a","patch":"x"}` + "\n\n" + `{"name":"b","patch":"` + strings.Repeat("y", 4<<20) + `"}` + "\n"
	_, err := limit(1<<20).parseJSONL(strings.NewReader(in), "c.jsonl")
	mustContain(t, err, "c.jsonl:3: line is over 4 MB; one candidate may hold at most 1 MB")
}

// TestLoad_JSONLTooLarge runs with the limit lowered to 1 MB: 50 MB of JSON
// takes many seconds under the race detector.
func TestLoad_JSONLTooLarge(t *testing.T) {
	big := strings.Repeat("x", 1<<20+1)
	dir := mkdir(t, map[string]string{"c.jsonl": `{"name":"bad","files":{"big.txt":"` + big + `"}}` + "\n" + `{"name":"bad2","patch":"` + big + `"}` + "\n"})
	cands, err := limit(1 << 20).load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) != 2 {
		t.Fatalf("got %d candidates", len(cands))
	}
	for i, c := range cands {
		mustContain(t, c.Invalid, fmt.Sprintf("%s/c.jsonl:%d: candidate too large: it holds 1.0 MB, over the 1 MB limit for one candidate", dir, i+1))
		if c.Files != nil || c.Patch != nil {
			t.Errorf("%s keeps its content", c.Name)
		}
	}
}

func TestCheckNames(t *testing.T) {
	for _, tt := range []struct {
		name  string
		cands []Candidate
		want  string // "" means no error
	}{
		{"Unique", []Candidate{{Name: "a"}, {Name: "b"}, {Name: "feature/x"}}, ""},
		{"None", nil, ""},
		{"RefCollidesWithFile", []Candidate{{Name: "fast", Source: "c/fast.patch"}, {Name: "fast", Source: "ref fast"}}, `duplicate candidate name: "fast" in c/fast.patch and ref fast`},
		{"Several", []Candidate{{Name: "a", Source: "1"}, {Name: "a", Source: "2"}, {Name: "b", Source: "3"}, {Name: "b", Source: "4"}}, `"a" in 1 and 2; "b" in 3 and 4`},
		{"Empty", []Candidate{{Name: "", Source: "x"}}, "bad candidate name: the candidate from x has an empty name"},
		{"Control", []Candidate{{Name: "a\tb", Source: "x"}}, `"a\tb" (from x) holds a control character`},
		{"C1Control", []Candidate{{Name: "a\u0085b", Source: "x"}}, `(U+0085)`},
		{"BidiOverride", []Candidate{{Name: "fast\u202Ewols", Source: "x"}}, `holds a control character or an invisible format character (U+202E)`},
		{"BidiIsolate", []Candidate{{Name: "a\u2066b", Source: "x"}}, `(U+2066)`},
		{"ZeroWidthJoiner", []Candidate{{Name: "a\u200Db", Source: "x"}}, `(U+200D)`},
		{"InvalidUTF8", []Candidate{{Name: "a\xffb", Source: "x"}}, `(U+FFFD)`},
		{"Unicode", []Candidate{{Name: "schnell-ü-速い"}}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckNames(tt.cands)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			mustContain(t, err, tt.want)
		})
	}
}

func TestParseJSONL(t *testing.T) {
	in := "\xef\xbb\xbf" + `{"name":"a","files":{"x.go":"X","old.go":null,"b.go":""},"parent":"p","explanation":"why","model":"m","score":[1]}` + "\r\n" +
		"   \n" + `{"name":"b","patch":"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n","parent":null}`
	cands, err := ParseJSONL(strings.NewReader(in), "gen.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := []Candidate{
		{Name: "a", Source: "gen.jsonl:1", Files: map[string][]byte{"x.go": []byte("X"), "b.go": {}}, Deleted: []string{"old.go"}, Parent: "p", Explanation: "why"},
		{Name: "b", Source: "gen.jsonl:3", Patch: []byte("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n")},
	}
	if !reflect.DeepEqual(cands, want) {
		t.Errorf("got\n%s\nwant\n%s", dump(cands), dump(want))
	}
}
