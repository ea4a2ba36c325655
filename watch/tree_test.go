package watch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/gitcmd"
)

// TestNewSession: a session of a tree reached through a symbolic link
// watches the real root, against HEAD, skipping the optimizer's folder. A
// repository without a commit has nothing to compare against.
func TestNewSession(t *testing.T) {
	ctx := context.Background()
	dir := newTestRepo(t, map[string]string{"a.go": "package a\n"})
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	r, err := gitcmd.FindRepo(ctx, link)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSession(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if s.Root != real {
		t.Errorf("Root = %s, want %s, its links resolved", s.Root, real)
	}
	if head := strings.TrimSpace(git(t, dir, "rev-parse", "HEAD")); s.Head != head {
		t.Errorf("Head = %s, want %s", s.Head, head)
	}
	if len(s.Skip) != 1 || s.Skip[0] != r.OptimizerDir() || s.Artifacts != r.ArtifactsDir() {
		t.Errorf("Skip %q, Artifacts %s: want the optimizer's folder %s and its artifacts", s.Skip, s.Artifacts, r.OptimizerDir())
	}

	empty := t.TempDir()
	git(t, empty, "init", "-q")
	if r, err := gitcmd.FindRepo(ctx, empty); err != nil {
		t.Fatal(err)
	} else if _, err := NewSession(ctx, r); err == nil || !strings.Contains(err.Error(), "watch needs a commit") {
		t.Errorf("no commit: %v, want an error that says watch needs one", err)
	}
}

// TestSession_OwnFiles: the configuration, a store inside the tree and its
// journal files, the candidates folders and the skipped folders are the
// optimizer's own; the user's files are not.
func TestSession_OwnFiles(t *testing.T) {
	root := t.TempDir()
	s := &Session{Root: root, Extra: []string{filepath.Join(root, "cands")}, Skip: []string{filepath.Join(root, ".git", "optimizer"), "/elsewhere"}}
	own := s.OwnFiles("optimizer.toml", filepath.Join(root, "db", "o.db"))
	for p, want := range map[string]bool{
		"optimizer.toml":      true,
		".optimizer-cache/x":  true,
		"db/o.db":             true,
		"db/o.db-wal":         true,
		"db/o.db-journal":     true,
		"db/other.db":         false,
		"cands/a.patch":       true,
		".git/optimizer/slot": true,
		"main.go":             false,
	} {
		if got := own(p); got != want {
			t.Errorf("own(%q) = %v, want %v", p, got, want)
		}
	}
	if noDB := s.OwnFiles("optimizer.toml", ""); noDB("db/o.db") || !noDB("cands/x") {
		t.Error("without a store: a file named like one is the user's, the candidates are not")
	}
}
