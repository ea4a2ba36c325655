package candidate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

var treeRepoFiles = map[string]string{
	"x.go":       "package x\n\nfunc X() int { return 1 }\n",
	"run.sh*":    "#!/bin/sh\necho 1\n",
	"dir/y.go":   "package dir\n",
	"dir/z.go":   "package dir\n\nvar Z = 1\n",
	"inside.txt": "target\n",
}

// treeRepo is a repository with a symlink to a file, a symlink out of the
// tree and a submodule.
func treeRepo(t *testing.T) (dir, base string) {
	t.Helper()
	dir, _ = newTestRepo(t, treeRepoFiles)
	for name, target := range map[string]string{"ln": "inside.txt", "out": t.TempDir(), "lndir": "dir"} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	git(t, dir, "add", "-A")
	_, sub := newTestRepo(t, map[string]string{"s.txt": "s\n"})
	git(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+sub+",vendor/lib")
	git(t, dir, "commit", "-q", "-m", "links and submodule")
	return dir, strings.TrimSpace(git(t, dir, "rev-parse", "HEAD"))
}

// treeAfter commits files on a throwaway branch from base and returns the
// tree id, leaving dir on its original branch.
func treeAfter(t *testing.T, dir, base string, files map[string]string) string {
	t.Helper()
	wt := filepath.Join(t.TempDir(), "wt")
	git(t, dir, "worktree", "add", "-q", "--detach", wt, base)
	defer git(t, dir, "worktree", "remove", "--force", wt)
	writeFiles(t, wt, files)
	git(t, wt, "add", "-A")
	return strings.TrimSpace(git(t, wt, "write-tree"))
}

// diffOf returns the patch git makes for files changed on base.
func diffOf(t *testing.T, dir, base string, files map[string]string) string {
	t.Helper()
	wt := filepath.Join(t.TempDir(), "wt")
	git(t, dir, "worktree", "add", "-q", "--detach", wt, base)
	defer git(t, dir, "worktree", "remove", "--force", wt)
	writeFiles(t, wt, files)
	git(t, wt, "add", "-A")
	return git(t, wt, "diff", "--cached", "--no-color")
}

func TestTreeID_SameTreeSameID(t *testing.T) {
	ctx := context.Background()
	dir, base := treeRepo(t)
	newX := "package x\n\nfunc X() int { return 2 }\n"
	baseTree := strings.TrimSpace(git(t, dir, "rev-parse", base+"^{tree}"))
	for _, tt := range []struct {
		name   string
		change map[string]string // as committed: the expected tree
		cands  []Candidate
	}{
		{"Modify", map[string]string{"x.go": newX}, []Candidate{
			{Patch: []byte("PATCH")},
			{Files: map[string][]byte{"x.go": []byte(newX)}},
			{Patch: []byte("PATCH"), Files: map[string][]byte{"x.go": []byte(newX)}},
		}},
		{"KeepsExecutable", map[string]string{"run.sh*": "#!/bin/sh\necho 2\n"}, []Candidate{
			{Patch: []byte("PATCH")},
			{Files: map[string][]byte{"run.sh": []byte("#!/bin/sh\necho 2\n")}},
		}},
		{"AddAndDelete", map[string]string{"new/n.go": "package n\n", "-dir/y.go": ""}, []Candidate{
			{Patch: []byte("PATCH")},
			{Files: map[string][]byte{"new/n.go": []byte("package n\n")}, Deleted: []string{"dir/y.go"}},
		}},
		{"FileBecomesDirectory", map[string]string{"-x.go": "", "x.go/inner.go": "package inner\n"}, []Candidate{
			{Patch: []byte("PATCH")},
			{Files: map[string][]byte{"x.go/inner.go": []byte("package inner\n")}, Deleted: []string{"x.go"}},
		}},
		{"DeleteMissingIsNoop", map[string]string{"x.go": newX}, []Candidate{
			{Files: map[string][]byte{"x.go": []byte(newX)}, Deleted: []string{"never/was.go"}},
		}},
		{"NoChange", map[string]string{}, []Candidate{
			{},
			{Files: map[string][]byte{"x.go": []byte(treeRepoFiles["x.go"])}},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := treeAfter(t, dir, base, tt.change)
			if len(tt.change) == 0 && want != baseTree {
				t.Fatalf("no change gives %s, base is %s", want, baseTree)
			}
			patch := diffOf(t, dir, base, tt.change)
			for i, c := range tt.cands {
				if string(c.Patch) == "PATCH" {
					c.Patch = []byte(patch)
				}
				got, err := TreeID(ctx, dir, base, c)
				if err != nil {
					t.Fatalf("candidate %d: %v", i, err)
				}
				if got != want {
					t.Errorf("candidate %d: TreeID = %s, want %s", i, got, want)
				}
			}
		})
	}
}

func TestTreeID_Loaded(t *testing.T) {
	ctx := context.Background()
	dir, base := treeRepo(t)
	newX := "package x\n\nfunc X() int { return 3 }\n"
	want := treeAfter(t, dir, base, map[string]string{"x.go": newX})
	patch := diffOf(t, dir, base, map[string]string{"x.go": newX})
	cdir := mkdir(t, map[string]string{
		"p.patch":  patch,
		"t/x.go":   newX,
		"j.jsonl":  jsonLine(t, map[string]any{"name": "jf", "files": map[string]string{"x.go": newX}}) + jsonLine(t, map[string]any{"name": "jp", "patch": patch}),
		"dup.diff": patch,
	})
	cands, err := Load(cdir)
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) != 5 {
		t.Fatalf("got %d candidates", len(cands))
	}
	for _, c := range cands {
		got, err := TreeID(ctx, dir, base, c)
		if err != nil || got != want {
			t.Errorf("%s: TreeID = %s, %v; want %s", c.Name, got, err, want)
		}
	}
}

func TestTreeID_Errors(t *testing.T) {
	ctx := context.Background()
	dir, base := treeRepo(t)
	short := base[:12]
	stale := "--- a/x.go\n+++ b/x.go\n@@ -1,3 +1,3 @@\n package x\n \n-func X() int { return 9 }\n+func X() int { return 2 }\n"
	invalidErr := errors.New("cands/bad.patch: not a diff")
	for _, tt := range []struct {
		name string
		c    Candidate
		base string
		want string
		is   error // nil: an *ApplyError
	}{
		{name: "PatchDoesNotApply", c: Candidate{Patch: []byte(stale)}, want: "does not apply to base " + short + ": error: patch failed: x.go:1\nerror: x.go: patch does not apply"},
		{name: "CorruptPatch", c: Candidate{Patch: []byte("--- a/x.go\n+++ b/x.go\n@@ -1,3 +1,3 @@\n package x\ngarbage\n")}, want: "corrupt patch at line"},
		{name: "PatchMissingFile", c: Candidate{Patch: []byte("--- a/nope.go\n+++ b/nope.go\n@@ -1 +1 @@\n-a\n+b\n")}, want: "error: nope.go: does not exist at base"},
		{name: "PatchThroughSymlink", c: Candidate{Patch: []byte("diff --git a/out/evil b/out/evil\nnew file mode 100644\n--- /dev/null\n+++ b/out/evil\n@@ -0,0 +1 @@\n+x\n")}, want: "beyond a symbolic link"},
		{name: "FilesThroughSymlink", c: Candidate{Files: map[string][]byte{"out/evil": []byte("x")}}, want: "does not apply to base " + short + ": cannot write out/evil: out is a symlink at base, and a path through a symlink is refused"},
		{name: "FilesThroughSymlinkInside", c: Candidate{Files: map[string][]byte{"lndir/y.go": []byte("x")}}, want: "lndir is a symlink at base"},
		{name: "FilesOverSymlink", c: Candidate{Files: map[string][]byte{"ln": []byte("x")}}, want: "ln is a symlink at base; a candidate cannot write through a symlink"},
		{name: "FilesOverDirectory", c: Candidate{Files: map[string][]byte{"dir": []byte("x")}}, want: "dir is a directory at base; a file cannot replace it"},
		{name: "FilesUnderFile", c: Candidate{Files: map[string][]byte{"x.go/inner.go": []byte("x")}}, want: "cannot write x.go/inner.go: x.go is a file at base"},
		{name: "FilesInSubmodule", c: Candidate{Files: map[string][]byte{"vendor/lib/s.txt": []byte("x")}}, want: "cannot write vendor/lib/s.txt: vendor/lib is a submodule at base"},
		{name: "FilesOverSubmodule", c: Candidate{Files: map[string][]byte{"vendor/lib": []byte("x")}}, want: "vendor/lib is a submodule at base"},
		{name: "Invalid", c: Candidate{Patch: []byte(stale), Invalid: invalidErr}, want: "cands/bad.patch: not a diff", is: invalidErr},
		{name: "BadPathNotLoaded", c: Candidate{Source: "mem", Files: map[string][]byte{"../x": nil}}, want: `mem: path "../x" leaves the repository`, is: ErrBadPath},
		{name: "UnknownBase", c: Candidate{}, base: "nope", want: "read base nope"},
		{name: "OptionBase", c: Candidate{}, base: "--help", want: `unknown revision "--help"`, is: ErrUnknownRef},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := base
			if tt.base != "" {
				b = tt.base
			}
			id, err := TreeID(ctx, dir, b, tt.c)
			if id != "" {
				t.Errorf("got id %s with the error", id)
			}
			mustContain(t, err, tt.want)
			var ae *ApplyError
			switch {
			case tt.base != "":
			case tt.is == nil && (!errors.As(err, &ae) || ae.Base != base):
				t.Errorf("error %#v is not an *ApplyError on base", err)
			case tt.is != nil && !errors.Is(err, tt.is):
				t.Errorf("error %v is not %v", err, tt.is)
			}
		})
	}
}

// TestTreeID_RepoUntouched checks that nothing under the repository, its
// .git included, changes. That covers the objects, the index, the refs, the
// working tree, and a staged or unstaged change the user has in progress.
func TestTreeID_RepoUntouched(t *testing.T) {
	ctx := context.Background()
	dir, base := treeRepo(t)
	git(t, dir, "gc", "-q") // packed objects, as most real repositories have
	writeFiles(t, dir, map[string]string{"x.go": "staged\n"})
	git(t, dir, "add", "x.go")
	writeFiles(t, dir, map[string]string{"x.go": "unstaged\n", "untracked.txt": "u\n"})
	git(t, dir, "config", "core.splitIndex", "true") // would write sharedindex files into .git
	wt := filepath.Join(t.TempDir(), "linked")
	git(t, dir, "worktree", "add", "-q", "--detach", wt, base)
	newX := "package x\n\nfunc X() int { return 4 }\n"
	patch := diffOf(t, dir, base, map[string]string{"x.go": newX, "added.go": "package x\n"})
	before, beforeWT := snapshot(t, dir), snapshot(t, wt)
	cands := []Candidate{
		{Patch: []byte(patch)},
		{Files: map[string][]byte{"x.go": []byte(newX), "added.go": []byte("package x\n")}, Deleted: []string{"dir/y.go"}},
		{Patch: []byte("--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-nope\n+b\n")},
		{Files: map[string][]byte{"out/evil": []byte("x")}},
	}
	for _, repo := range []string{dir, filepath.Join(dir, "dir"), wt} {
		for i, c := range cands {
			id, err := TreeID(ctx, repo, base, c)
			if (err == nil) != (i < 2) {
				t.Errorf("%s candidate %d: %s, %v", repo, i, id, err)
			}
		}
	}
	if after := snapshot(t, dir); !reflect.DeepEqual(before, after) {
		t.Errorf("the repository changed:\n%s", mapDiff(before, after))
	}
	if after := snapshot(t, wt); !reflect.DeepEqual(beforeWT, after) {
		t.Errorf("the linked worktree changed:\n%s", mapDiff(beforeWT, after))
	}
}

func mapDiff(a, b map[string]string) string {
	var out []string
	for k, v := range a {
		if b[k] != v {
			out = append(out, "- "+k+" "+v+"\n+ "+k+" "+b[k])
		}
	}
	for k, v := range b {
		if _, ok := a[k]; !ok {
			out = append(out, "+ "+k+" "+v)
		}
	}
	return strings.Join(out, "\n")
}

func TestTreeID_Concurrent(t *testing.T) {
	ctx := context.Background()
	dir, base := treeRepo(t)
	var wg sync.WaitGroup
	ids := make([]string, 8)
	errs := make([]error, 8)
	for i := range ids {
		wg.Go(func() {
			c := Candidate{Files: map[string][]byte{"x.go": []byte(strings.Repeat("x", i%2))}}
			ids[i], errs[i] = TreeID(ctx, dir, base, c)
		})
	}
	wg.Wait()
	for i := range ids {
		if errs[i] != nil || ids[i] != ids[i%2] {
			t.Errorf("goroutine %d: %s, %v; want %s", i, ids[i], errs[i], ids[i%2])
		}
	}
	if ids[0] == ids[1] {
		t.Error("different contents gave the same id")
	}
}

func TestTreeID_Canceled(t *testing.T) {
	dir, base := treeRepo(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := TreeID(ctx, dir, base, Candidate{Files: map[string][]byte{"x.go": nil}}); err == nil {
		t.Fatal("TreeID succeeded with a canceled context")
	}
}
