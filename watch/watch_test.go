package watch

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/internal/testenv"
)

func newTestRepo(tb testing.TB, files map[string]string) string {
	tb.Helper()
	dir := tb.TempDir()
	for p, s := range files {
		writeFile(tb, dir, p, s)
	}
	git(tb, dir, "init", "-q", "-b", "main")
	git(tb, dir, "add", "-A")
	git(tb, dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base")
	return dir
}

func writeFile(tb testing.TB, dir, p, s string) {
	tb.Helper()
	full := filepath.Join(dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
		tb.Fatal(err)
	}
}

func git(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		tb.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// start runs a watcher on root and returns its changes.
func start(t *testing.T, opts Options) <-chan Change {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w, err := New(ctx, opts)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	out := make(chan Change, 16)
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx, out) }()
	t.Cleanup(func() { cancel(); <-done })
	return out
}

func next(t *testing.T, ch <-chan Change, within time.Duration) Change {
	t.Helper()
	select {
	case c := <-ch:
		return c
	case <-time.After(within):
		t.Fatalf("no change within %s", within)
	}
	return Change{}
}

func none(t *testing.T, ch <-chan Change, within time.Duration) {
	t.Helper()
	select {
	case c := <-ch:
		t.Fatalf("unexpected change %+v", c)
	case <-time.After(within):
	}
}

// TestWatcher_Burst: saves in a burst are one change. The quiet time is
// long beside the burst (no pause in it), so a busy machine cannot split it.
func TestWatcher_Burst(t *testing.T) {
	root := newTestRepo(t, map[string]string{"a.go": "package a\n", "sub/b.go": "package sub\n"})
	ch := start(t, Options{Root: root, Quiet: 2 * time.Second})
	for i := range 10 {
		writeFile(t, root, "a.go", fmt.Sprintf("package a // %d\n", i))
		writeFile(t, root, "sub/b.go", fmt.Sprintf("package sub // %d\n", i))
	}
	c := next(t, ch, time.Minute)
	if want := []string{"a.go", "sub/b.go"}; !slices.Equal(c.Paths, want) {
		t.Errorf("paths %v, want %v", c.Paths, want)
	}
	none(t, ch, 500*time.Millisecond)
}

func TestWatcher_Ignores(t *testing.T) {
	root := newTestRepo(t, map[string]string{"a.go": "package a\n", ".gitignore": "build/\n"})
	if err := os.Mkdir(filepath.Join(root, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	ch := start(t, Options{Root: root, Quiet: 100 * time.Millisecond})
	writeFile(t, root, ".a.go.swp", "x")
	writeFile(t, root, "a.go~", "x")
	writeFile(t, root, "4913", "x")
	writeFile(t, root, "build/out.bin", "x")
	os.Chmod(filepath.Join(root, "a.go"), 0o600)
	none(t, ch, 600*time.Millisecond)
}

func TestWatcher_NewDirectory(t *testing.T) {
	root := newTestRepo(t, map[string]string{"a.go": "package a\n"})
	ch := start(t, Options{Root: root, Quiet: 150 * time.Millisecond})
	writeFile(t, root, "x/y/z.go", "package y\n")
	c := next(t, ch, 5*time.Second)
	if !slices.Contains(c.Paths, "x/y/z.go") {
		t.Fatalf("paths %v, want x/y/z.go among them", c.Paths)
	}
	// The new directory is watched (the watcher adds it when it sees it
	// made, before the change above could be sent): a later save in it is
	// seen.
	writeFile(t, root, "x/y/z.go", "package y // edited\n")
	c = next(t, ch, 5*time.Second)
	if !slices.Equal(c.Paths, []string{"x/y/z.go"}) {
		t.Fatalf("paths %v, want [x/y/z.go]", c.Paths)
	}
}

// TestWatcher_Storm: a checkout-sized storm of 5,000 files is one change.
func TestWatcher_Storm(t *testing.T) {
	testenv.Long(t)
	root := newTestRepo(t, map[string]string{"a.go": "package a\n"})
	ch := start(t, Options{Root: root, Quiet: 300 * time.Millisecond, MaxWait: 20 * time.Second})
	for i := range 5000 {
		writeFile(t, root, fmt.Sprintf("gen/d%02d/f%04d.txt", i%50, i), "x")
	}
	c := next(t, ch, 30*time.Second)
	if len(c.Paths) != 5000 {
		t.Errorf("%d paths in the change, want 5000", len(c.Paths))
	}
	none(t, ch, time.Second)
}

// TestWatcher_MaxWait: saves that never pause for Quiet still give a
// change, once MaxWait has passed. Quiet is far longer than the test waits,
// so only MaxWait can end the debounce.
func TestWatcher_MaxWait(t *testing.T) {
	root := newTestRepo(t, map[string]string{"a.go": "package a\n"})
	ch := start(t, Options{Root: root, Quiet: 10 * time.Minute, MaxWait: 500 * time.Millisecond})
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { // the saver: owned here, stopped before the test ends
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			os.WriteFile(filepath.Join(root, "a.go"), []byte(fmt.Sprintf("package a // %d\n", i)), 0o644)
		}
	}()
	defer func() { close(stop); <-done }()
	next(t, ch, time.Minute)
}

func TestTake(t *testing.T) {
	root := newTestRepo(t, map[string]string{"a.go": "package a\n", "b.go": "package a\n", ".gitignore": "*.log\n"})
	index := hashFile(t, filepath.Join(root, ".git", "index"))
	head := strings.TrimSpace(git(t, root, "rev-parse", "HEAD"))

	s, err := Take(context.Background(), root, "tree")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Candidate.Files) != 0 || len(s.Candidate.Deleted) != 0 || s.Head != head {
		t.Fatalf("clean tree: snapshot %+v, want empty at %s", s, head)
	}
	writeFile(t, root, "a.go", "package a // edited\n")
	os.Remove(filepath.Join(root, "b.go"))
	writeFile(t, root, "new/c.go", "package new\n")
	writeFile(t, root, "debug.log", "ignored\n")
	s, err = Take(context.Background(), root, "tree")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for p := range s.Candidate.Files {
		files = append(files, p)
	}
	slices.Sort(files)
	if want := []string{"a.go", "new/c.go"}; !slices.Equal(files, want) {
		t.Errorf("files %v, want %v", files, want)
	}
	if want := []string{"b.go"}; !slices.Equal(s.Candidate.Deleted, want) {
		t.Errorf("deleted %v, want %v", s.Candidate.Deleted, want)
	}
	// Later edits don't leak into the snapshot.
	writeFile(t, root, "a.go", "package a // later\n")
	if got := string(s.Candidate.Files["a.go"]); got != "package a // edited\n" {
		t.Errorf("snapshot content changed to %q", got)
	}
	if got := hashFile(t, filepath.Join(root, ".git", "index")); got != index {
		t.Error("Take changed the user's index")
	}
}

func hashFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", sha256.Sum256(b))
}

// TestWatcher_GitState: a commit that rewrites neither HEAD nor the index,
// a checkout and a commit in a linked worktree each show as GitState.
func TestWatcher_GitState(t *testing.T) {
	root := newTestRepo(t, map[string]string{"a.go": "package a\n"})
	ch := start(t, Options{Root: root, Quiet: 100 * time.Millisecond})
	commit := []string{"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "next"}
	git(t, root, commit...)
	if c := next(t, ch, 5*time.Second); !c.GitState {
		t.Fatalf("commit: change %+v, want GitState", c)
	}
	git(t, root, "checkout", "-q", "-b", "feature")
	if c := next(t, ch, 5*time.Second); !c.GitState {
		t.Fatalf("checkout: change %+v, want GitState", c)
	}

	linked := filepath.Join(t.TempDir(), "linked")
	git(t, root, "worktree", "add", "-q", "--detach", linked)
	lch := start(t, Options{Root: linked, Quiet: 100 * time.Millisecond})
	git(t, linked, commit...)
	if c := next(t, lch, 5*time.Second); !c.GitState {
		t.Fatalf("commit in a linked worktree: change %+v, want GitState", c)
	}
}

// TestWatcher_ExtraIgnored: a candidates folder inside the tree that git
// ignores is still watched, new sub-directories included, and its paths
// come as Extra, absolute.
func TestWatcher_ExtraIgnored(t *testing.T) {
	root := newTestRepo(t, map[string]string{"a.go": "package a\n", ".gitignore": "cands/\n"})
	cands := filepath.Join(root, "cands")
	if err := os.Mkdir(cands, 0o755); err != nil {
		t.Fatal(err)
	}
	ch := start(t, Options{Root: root, Extra: []string{cands}, Quiet: 100 * time.Millisecond})
	writeFile(t, root, "cands/fast/a.go", "package a // fast\n")
	c := next(t, ch, 5*time.Second)
	want := filepath.Join(cands, "fast", "a.go")
	if !c.Extra || !slices.Equal(c.Paths, []string{want}) {
		t.Fatalf("change %+v, want Extra with [%s]", c, want)
	}
	// The new directory was added when it was made, before that change.
	writeFile(t, root, "cands/fast/a.go", "package a // faster\n")
	if c := next(t, ch, 5*time.Second); !slices.Equal(c.Paths, []string{want}) {
		t.Fatalf("edit in the new directory: change %+v, want [%s]", c, want)
	}
}

// TestIgnored: editors' and tools' temporary files are ignored, and names
// that only look like them are not.
func TestIgnored(t *testing.T) {
	for _, tt := range []struct {
		name string
		want bool
	}{
		{"sedKsiRms", true}, {"dir/sed0aZ9bc", true}, {"4913", true}, {".a.go.swp", true}, {"a.go~", true},
		{".#a.go", true}, {"#a.go#", true}, {"a.go___jb_tmp___", true}, {".a.go.kate-swp", true},
		{"sediment", false}, {"sedations", false}, {"sedKsiRmsX", false}, {"sed.go", false}, {"a.go", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Ignored(tt.name); got != tt.want {
				t.Errorf("Ignored(%q) = %v, want %v", tt.name, got, tt.want)
			}
		})
	}
}
