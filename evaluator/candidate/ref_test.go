package candidate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// refRepo is a repository whose branch "feature" makes every kind of change
// a diff can carry.
func refRepo(t *testing.T) (dir, base string) {
	t.Helper()
	dir, base = newTestRepo(t, map[string]string{
		"a.go":                   "package a\n\nfunc A() int {\n\treturn 1\n}\n",
		"noeol.txt":              "one\ntwo",
		"del.txt":                "gone soon\n",
		"script.sh*":             "#!/bin/sh\necho one\n",
		"mode.txt":               "same content\n",
		"bin.dat":                "\x00\x01\x02binary\x00",
		"oldbin.dat":             "\x00old\x00",
		"dir with space/f i.txt": "spaced\n",
		"unicodé.txt":            "accent\n",
		"empty-later.txt":        "not empty yet\n",
		"sub/keep.go":            "package sub\n",
	})
	if err := os.Symlink("a.go", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	base = commit(t, dir, nil, "add link")
	git(t, dir, "checkout", "-q", "-b", "feature")
	writeFiles(t, dir, map[string]string{
		"a.go":                   "package a\n\nfunc A() int {\n\treturn 2\n}\n",
		"noeol.txt":              "one\nthree",
		"-del.txt":               "",
		"script.sh*":             "#!/bin/sh\necho two\n",
		"mode.txt*":              "same content\n",
		"bin.dat":                "\x00\x01\x02binary changed\x00",
		"newbin.dat":             "\x00new\x00",
		"-oldbin.dat":            "",
		"dir with space/f i.txt": "spaced out\n",
		"unicodé.txt":            "accent grave\n",
		"empty.txt":              "",
		"empty-later.txt":        "",
		"new/deep/file.go":       "package deep\n",
	})
	os.Remove(filepath.Join(dir, "link"))
	if err := os.Symlink("noeol.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	commit(t, dir, nil, "feature: faster A\n\nBody of the message.")
	git(t, dir, "checkout", "-q", "main")
	return dir, base
}

func TestFromRef(t *testing.T) {
	ctx := context.Background()
	dir, base := refRepo(t)
	c, err := FromRef(ctx, dir, base, "feature")
	if err != nil {
		t.Fatal(err)
	}
	if c.Invalid != nil {
		t.Fatalf("Invalid: %v\n%s", c.Invalid, c.Patch)
	}
	if c.Name != "feature" || c.Source != "ref feature" || c.Explanation != "feature: faster A\n\nBody of the message." {
		t.Errorf("got name %q source %q explanation %q", c.Name, c.Source, c.Explanation)
	}
	if got := slices.Sorted(func(yield func(string) bool) {
		for p := range c.Files {
			if !yield(p) {
				return
			}
		}
	}); !slices.Equal(got, []string{"bin.dat", "empty.txt", "newbin.dat"}) {
		t.Errorf("Files = %q, want the changed binary files and the new empty one", got)
	}
	if !slices.Equal(c.Deleted, []string{"oldbin.dat"}) {
		t.Errorf("Deleted = %q", c.Deleted)
	}
	wantPaths := []string{"a.go", "bin.dat", "del.txt", "dir with space/f i.txt", "empty-later.txt", "empty.txt",
		"link", "mode.txt", "new/deep/file.go", "newbin.dat", "noeol.txt", "oldbin.dat", "script.sh", "unicodé.txt"}
	if got := c.Paths(); !slices.Equal(got, wantPaths) {
		t.Errorf("Paths() =\n%q\nwant\n%q", got, wantPaths)
	}
	want := strings.TrimSpace(git(t, dir, "rev-parse", "feature^{tree}"))

	t.Run("GitApply", func(t *testing.T) {
		wt := filepath.Join(t.TempDir(), "wt")
		git(t, dir, "worktree", "add", "-q", "--detach", wt, base)
		if out, err := gitStdin(wt, string(c.Patch), "apply", "--whitespace=nowarn"); err != nil {
			t.Fatalf("git apply: %v\n%s\npatch:\n%s", err, out, c.Patch)
		}
		for p, b := range c.Files {
			if err := os.WriteFile(filepath.Join(wt, p), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, p := range c.Deleted {
			if err := os.Remove(filepath.Join(wt, p)); err != nil {
				t.Fatal(err)
			}
		}
		git(t, wt, "add", "-A")
		if got := strings.TrimSpace(git(t, wt, "write-tree")); got != want {
			t.Errorf("applied tree %s, want feature's %s\n%s", got, want, git(t, wt, "diff", "--cached", "feature"))
		}
	})
	t.Run("TreeID", func(t *testing.T) {
		got, err := TreeID(ctx, dir, base, c)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("TreeID = %s, want feature's tree %s", got, want)
		}
	})
}

func TestFromRef_Revisions(t *testing.T) {
	ctx := context.Background()
	dir, base := newTestRepo(t, map[string]string{"x.txt": "1\n"})
	second := commit(t, dir, map[string]string{"x.txt": "2\n"}, "two")
	third := commit(t, dir, map[string]string{"x.txt": "3\n"}, "three")
	git(t, dir, "tag", "-a", "-m", "annotated", "v1", second)
	git(t, dir, "tag", "light", third)
	tree := func(rev string) string { return strings.TrimSpace(git(t, dir, "rev-parse", rev+"^{tree}")) }
	for _, tt := range []struct {
		ref, name, tree string
	}{
		{"HEAD", "HEAD", tree(third)},
		{"HEAD~1", "HEAD-1", tree(second)},
		{"main^", "main", tree(second)},
		{"v1", "v1", tree(second)},
		{"light", "light", tree(third)},
		{second, second[:ShortHash], tree(second)},
		{strings.ToUpper(third), third[:ShortHash], tree(third)},
		{third[:10], third[:10], tree(third)},
		{"refs/heads/main", "refs/heads/main", tree(third)},
	} {
		t.Run(tt.ref, func(t *testing.T) {
			c, err := FromRef(ctx, dir, base, tt.ref)
			if err != nil {
				t.Fatal(err)
			}
			if c.Name != tt.name {
				t.Errorf("Name = %q, want %q", c.Name, tt.name)
			}
			got, err := TreeID(ctx, dir, base, c)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.tree {
				t.Errorf("TreeID = %s, want %s", got, tt.tree)
			}
		})
	}
	t.Run("SameAsBase", func(t *testing.T) {
		c, err := FromRef(ctx, dir, base, base)
		if err != nil {
			t.Fatal(err)
		}
		if c.Invalid != nil || len(c.Patch) != 0 || len(c.Files) != 0 {
			t.Fatalf("got %+v, want an empty valid candidate", c)
		}
		if got, err := TreeID(ctx, dir, base, c); err != nil || got != tree(base) {
			t.Errorf("TreeID = %s, %v; want base's tree %s", got, err, tree(base))
		}
	})
	t.Run("LinkedWorktree", func(t *testing.T) {
		wt := filepath.Join(t.TempDir(), "wt")
		git(t, dir, "worktree", "add", "-q", "--detach", wt, base)
		c, err := FromRef(ctx, filepath.Join(wt), base, "v1")
		if err != nil {
			t.Fatal(err)
		}
		if got, err := TreeID(ctx, wt, base, c); err != nil || got != tree(second) {
			t.Errorf("TreeID = %s, %v; want %s", got, err, tree(second))
		}
	})
}

func TestFromRef_Errors(t *testing.T) {
	ctx := context.Background()
	dir, base := newTestRepo(t, map[string]string{"x.txt": "1\n"})
	for _, tt := range []struct {
		name, dir, base, ref, want string
	}{
		{"UnknownRef", dir, base, "no-such-branch", `unknown revision "no-such-branch"`},
		{"UnknownBase", dir, "nope", "HEAD", `read base: unknown revision "nope"`},
		{"BeyondHistory", dir, base, "HEAD~5", `unknown revision "HEAD~5"`},
		{"BadSyntax", dir, base, "HEAD~~^{", `unknown revision "HEAD~~^{"`},
		{"NotARepo", t.TempDir(), base, "HEAD", "open repository"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FromRef(ctx, tt.dir, tt.base, tt.ref)
			mustContain(t, err, tt.want)
			if tt.name != "NotARepo" && !errors.Is(err, ErrUnknownRef) {
				t.Errorf("error %v is not ErrUnknownRef", err)
			}
		})
	}
}

func TestFromRef_Submodule(t *testing.T) {
	ctx := context.Background()
	dir, base := newTestRepo(t, map[string]string{"x.txt": "1\n"})
	_, sub := newTestRepo(t, map[string]string{"y.txt": "y\n"})
	git(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+sub+",vendor/lib")
	git(t, dir, "commit", "-q", "-m", "add submodule")
	c, err := FromRef(ctx, dir, base, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, c.Invalid, "ref HEAD: changes submodule vendor/lib; a candidate cannot change a submodule")
}

func TestRefName(t *testing.T) {
	for in, want := range map[string]string{
		"feature/fast": "feature/fast",
		"HEAD~1":       "HEAD-1",
		"a b\tc":       "a-b-c",
		"~~~":          "ref",
		"v1.2_rc-3":    "v1.2_rc-3",
		"héllo":        "h-llo",
		"0123456789abcdef0123456789abcdef01234567": "0123456789ab",
		"0123456789abc":    "0123456789ab",
		"0123456789ab":     "0123456789ab",
		"0123456789a":      "0123456789a",
		"fedcba9876543210": "fedcba9876543210", // not the commit's hash: a branch of that name
	} {
		if got := refName(in, "0123456789abcdef0123456789abcdef01234567"); got != want {
			t.Errorf("refName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFromRef_ControlCharacterPath(t *testing.T) {
	ctx := context.Background()
	dir, base := newTestRepo(t, map[string]string{"tab\tname.txt": "one\n"})
	commit(t, dir, map[string]string{"tab\tname.txt": "two\n"}, "edit")
	c, err := FromRef(ctx, dir, base, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, c.Invalid, `ref HEAD: diff `)
	mustContain(t, c.Invalid, `contains control character`)
	if _, err := TreeID(ctx, dir, base, c); err != c.Invalid {
		t.Errorf("TreeID error %v, want the Invalid error", err)
	}
}

// TestLoadAll: paths first, then refs, with names unique across them.
func TestLoadAll(t *testing.T) {
	ctx := context.Background()
	dir, base := refRepo(t)
	cands := t.TempDir()
	if err := os.WriteFile(filepath.Join(cands, "c.jsonl"), []byte(`{"name": "one", "files": {"x": "1\n"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	all, err := LoadAll(ctx, dir, base, []string{cands}, []string{"feature"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range all {
		names = append(names, c.Name)
	}
	if want := []string{"one", "feature"}; !slices.Equal(names, want) {
		t.Errorf("names %q, want %q", names, want)
	}
	if err := os.WriteFile(filepath.Join(cands, "c.jsonl"), []byte(`{"name": "feature", "files": {"x": "1\n"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadAll(ctx, dir, base, []string{cands}, []string{"feature"}); !errors.Is(err, ErrDuplicateName) {
		t.Errorf("LoadAll with a name twice = %v, want ErrDuplicateName", err)
	}
	if _, err := LoadAll(ctx, dir, base, nil, []string{"no-such-ref"}); err == nil {
		t.Error("LoadAll of an unknown ref: no error")
	}
}
