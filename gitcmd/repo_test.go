package gitcmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestFindRepo(t *testing.T) {
	ctx := context.Background()
	dir := newTestRepo(t)
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := FindRepo(ctx, sub)
	if err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.EvalSymlinks(dir)
	if got, _ := filepath.EvalSymlinks(r.Root); got != root {
		t.Errorf("Root = %s, want %s", r.Root, dir)
	}
	if got, _ := filepath.EvalSymlinks(r.CommonDir); got != filepath.Join(root, ".git") {
		t.Errorf("CommonDir = %s, want %s/.git", r.CommonDir, dir)
	}
	if got, want := r.StorePath(""), filepath.Join(r.CommonDir, "optimizer", "optimizer.db"); got != want {
		t.Errorf("StorePath(\"\") = %s, want %s", got, want)
	}
	if got := r.StorePath("/x.db"); got != "/x.db" {
		t.Errorf("StorePath(/x.db) = %s", got)
	}
	if got, want := r.ArtifactsDir(), filepath.Join(r.CommonDir, "optimizer", "artifacts"); got != want {
		t.Errorf("ArtifactsDir = %s, want %s", got, want)
	}

	for _, bad := range []string{t.TempDir(), filepath.Join(dir, "missing")} {
		if _, err := FindRepo(ctx, bad); err == nil || !strings.HasPrefix(err.Error(), "not a git repository: ") {
			t.Errorf("FindRepo(%s) = %v, want not a git repository", bad, err)
		}
	}
}

func TestRepo_Resolve(t *testing.T) {
	ctx := context.Background()
	dir := newTestRepo(t)
	r, err := FindRepo(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	head, err := readOutput(ctx, dir, "rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	for _, rev := range []string{"HEAD", "main", head[:10]} {
		if got, err := r.Resolve(ctx, rev); err != nil || got != head {
			t.Errorf("Resolve(%s) = %s, %v; want %s", rev, got, err, head)
		}
	}
	// A reflog revision, which go-git leaves to git rev-parse.
	if got, err := r.Resolve(ctx, "HEAD@{0}"); err != nil || got != head {
		t.Errorf("Resolve(HEAD@{0}) = %s, %v; want %s", got, err, head)
	}
	for _, rev := range []string{"no-such-branch", "--all"} {
		if _, err := r.Resolve(ctx, rev); err == nil || err.Error() != `unknown base revision "`+rev+`"` {
			t.Errorf("Resolve(%s) = %v, want unknown base revision", rev, err)
		}
	}

	empty := t.TempDir()
	if _, err := Run(ctx, Cmd{Dir: empty, Args: []string{"init", "-q"}}); err != nil {
		t.Fatal(err)
	}
	er, err := FindRepo(ctx, empty)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := er.Resolve(ctx, "HEAD"); err == nil || !strings.Contains(err.Error(), "has no commits yet") {
		t.Errorf("Resolve in an empty repository = %v, want no commits yet", err)
	}
}

func TestRepo_IgnoredFiles(t *testing.T) {
	ctx := context.Background()
	dir := newTestRepo(t)
	for p, s := range map[string]string{
		".gitignore":      "*.env\nbuild/\nsecret.txt\n",
		"a.env":           "",
		"sub/b.env":       "",
		"build/x/y.bin":   "",
		"secret.txt":      "",
		"tracked.go":      "",
		"sub/other.notes": "",
	} {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := Repo{Root: dir}
	for _, tt := range []struct {
		name     string
		patterns []string
		want     []string
	}{
		{"None", nil, nil},
		{"BaseNameGlob", []string{"*.env"}, []string{"a.env", "sub/b.env"}},
		{"PathGlob", []string{"sub/*.env"}, []string{"sub/b.env"}},
		{"Directory", []string{"build/"}, []string{"build/x/y.bin"}},
		{"Several", []string{"secret.txt", "build"}, []string{"build/x/y.bin", "secret.txt"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.IgnoredFiles(ctx, tt.patterns)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("IgnoredFiles(%q) = %q, want %q", tt.patterns, got, tt.want)
			}
		})
	}
	t.Run("ErrNoMatch", func(t *testing.T) {
		_, err := r.IgnoredFiles(ctx, []string{"*.env", "tracked.go"})
		if !errors.Is(err, ErrNoMatch) || !strings.HasPrefix(err.Error(), `"tracked.go" matches no ignored file in `) {
			t.Errorf("err = %v, want ErrNoMatch for tracked.go", err)
		}
	})
}
