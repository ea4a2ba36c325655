package worktreepool

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/proc"
)

// newTestRepo makes a repository with a few tracked files, an ignore file
// and a commit, and returns its root and the commit.
func newTestRepo(tb testing.TB) (string, string) {
	tb.Helper()
	dir := tb.TempDir()
	files := map[string]string{
		"a.txt":      "a\n",
		"sub/b.txt":  "b\n",
		"sub/c.sh":   "echo c\n",
		".gitignore": "*.log\nbuild/\n",
	}
	for p, s := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	run(tb, dir, "git", "init", "-q", "-b", "main")
	run(tb, dir, "git", "add", "-A")
	run(tb, dir, "git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base")
	return dir, strings.TrimSpace(run(tb, dir, "git", "rev-parse", "HEAD"))
}

func run(tb testing.TB, dir string, name string, args ...string) string {
	tb.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func openPool(tb testing.TB, repo, base string, size int, keep bool) *Pool {
	tb.Helper()
	p, err := Open(context.Background(), Options{Repo: repo, Base: base, Size: size, Keep: keep, MachineLock: privateLock(tb)})
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// privateLock is a machine lock of the test's own, so that the pool's tests
// do not wait for whatever else runs on the machine.
func privateLock(tb testing.TB) string {
	return filepath.Join(tb.TempDir(), "machine.lock")
}

func closePool(tb testing.TB, p *Pool) {
	tb.Helper()
	if err := p.Close(context.Background()); err != nil {
		tb.Errorf("close: %v", err)
	}
}

// linked lists the repository's linked worktrees (not the main one).
func linked(tb testing.TB, repo string) []string {
	tb.Helper()
	paths, err := worktrees(context.Background(), repo)
	if err != nil {
		tb.Fatal(err)
	}
	return paths[1:]
}

// tree describes a work tree: every file outside .git with its content and
// mode, and what git status says.
func tree(tb testing.TB, s *Slot) string {
	tb.Helper()
	var b strings.Builder
	filepath.WalkDir(s.Dir(), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			tb.Fatal(err)
		}
		rel, _ := filepath.Rel(s.Dir(), p)
		if rel == ".git" {
			return nil
		}
		info, _ := d.Info()
		fmt.Fprintf(&b, "%s %v", rel, info.Mode())
		if info.Mode().IsRegular() {
			data, _ := os.ReadFile(p)
			fmt.Fprintf(&b, " %q", data)
		}
		b.WriteByte('\n')
		return nil
	})
	st, err := s.status(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	fmt.Fprintf(&b, "head %s clean %v\n", st.head, st.clean())
	return b.String()
}

func TestPool_AcquireStageRelease(t *testing.T) {
	repo, base := newTestRepo(t)
	p := openPool(t, repo, base, 2, false)
	defer closePool(t, p)
	ctx := context.Background()

	s, err := p.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	clean := tree(t, s)
	if !strings.Contains(clean, "clean true") || !strings.Contains(clean, "head "+base) {
		t.Fatalf("a new slot is not clean at base:\n%s", clean)
	}
	patch := "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+patched\n"
	if err := s.Apply(ctx, []byte(patch)); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteFiles(map[string][]byte{"new/n.txt": []byte("n"), "sub/b.txt": []byte("B")}, []string{"sub/c.sh"}); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{"a.txt": "patched\n", "new/n.txt": "n", "sub/b.txt": "B"} {
		if got, _ := os.ReadFile(filepath.Join(s.Dir(), p)); string(got) != want {
			t.Errorf("%s = %q after staging, want %q", p, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), "sub/c.sh")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("sub/c.sh not deleted: %v", err)
	}
	name := s.Name()
	p.Release(s)

	// With two slots and one holder at a time, the same slots come back:
	// restored, never rebuilt.
	names := map[string]bool{}
	for range 6 {
		s, err := p.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		names[s.Name()] = true
		if s.Name() == name {
			if got := tree(t, s); got != clean {
				t.Errorf("slot not restored:\n got %s\nwant %s", got, clean)
			}
		}
		p.Release(s)
	}
	if len(names) > 2 {
		t.Errorf("%d distinct slots over 6 acquires of a 2-slot pool: %v", len(names), names)
	}
	if st := p.Stats(); st.Open != 2 || st.InUse != 0 || st.Replaced != 0 || st.Failed != 0 {
		t.Errorf("stats %+v", st)
	}
}

// TestSlot_Reset checks that whatever a test does to its slot, the next
// holder gets it as base.
func TestSlot_Reset(t *testing.T) {
	repo, base := newTestRepo(t)
	p := openPool(t, repo, base, 1, false)
	defer closePool(t, p)
	ctx := context.Background()
	s, err := p.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	clean := tree(t, s)
	p.Release(s)

	git := func(dir string, args ...string) {
		run(t, dir, "git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
	}
	for _, tt := range []struct {
		name string
		mess func(dir string)
	}{
		{"EditTracked", func(d string) { os.WriteFile(filepath.Join(d, "a.txt"), []byte("x"), 0o644) }},
		{"DeleteTracked", func(d string) { os.RemoveAll(filepath.Join(d, "sub")) }},
		{"Untracked", func(d string) {
			os.MkdirAll(filepath.Join(d, "u/v"), 0o755)
			os.WriteFile(filepath.Join(d, "u/v/w"), []byte("w"), 0o644)
		}},
		{"Ignored", func(d string) {
			os.WriteFile(filepath.Join(d, "x.log"), []byte("log"), 0o644)
			os.MkdirAll(filepath.Join(d, "build/deep"), 0o755)
			os.WriteFile(filepath.Join(d, "build/deep/o"), []byte("o"), 0o644)
		}},
		{"ReadOnlyDir", func(d string) {
			os.MkdirAll(filepath.Join(d, "ro/in"), 0o755)
			os.WriteFile(filepath.Join(d, "ro/in/f"), []byte("f"), 0o444)
			os.Chmod(filepath.Join(d, "ro/in"), 0o555)
			os.Chmod(filepath.Join(d, "ro"), 0o555)
		}},
		{"ChmodTracked", func(d string) { os.Chmod(filepath.Join(d, "sub/c.sh"), 0o755) }},
		{"Staged", func(d string) {
			os.WriteFile(filepath.Join(d, "a.txt"), []byte("staged"), 0o644)
			git(d, "add", "a.txt")
		}},
		{"Committed", func(d string) {
			os.WriteFile(filepath.Join(d, "c.txt"), []byte("c"), 0o644)
			git(d, "add", "c.txt")
			git(d, "commit", "-q", "-m", "in a slot")
		}},
		{"DeleteDotGit", func(d string) { os.Remove(filepath.Join(d, ".git")) }},
		{"DeleteDotGitAndEdit", func(d string) {
			os.Remove(filepath.Join(d, ".git"))
			os.WriteFile(filepath.Join(d, "a.txt"), []byte("x"), 0o644)
		}},
		{"TrackedDirToSymlink", func(d string) {
			os.RemoveAll(filepath.Join(d, "sub"))
			os.Symlink(t.TempDir(), filepath.Join(d, "sub"))
		}},
		{"HardLinkWrite", func(d string) {
			// A tracked file written through a link whose name is gone
			// again: the watch saw only the link's name.
			os.Link(filepath.Join(d, "a.txt"), filepath.Join(d, ".l"))
			os.WriteFile(filepath.Join(d, ".l"), []byte("poison\n"), 0o644)
			os.Remove(filepath.Join(d, ".l"))
		}},
		{"HardLinkWriteInNewDir", func(d string) {
			os.MkdirAll(filepath.Join(d, "tmp/x"), 0o755)
			os.Link(filepath.Join(d, "sub/b.txt"), filepath.Join(d, "tmp/x/l"))
			os.WriteFile(filepath.Join(d, "tmp/x/l"), []byte("poison\n"), 0o644)
			os.RemoveAll(filepath.Join(d, "tmp"))
		}},
		{"DeleteEverything", func(d string) {
			entries, _ := os.ReadDir(d)
			for _, e := range entries {
				os.RemoveAll(filepath.Join(d, e.Name()))
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := p.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			tt.mess(s.Dir())
			p.Release(s)
			s, err = p.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Release(s)
			if got := tree(t, s); got != clean {
				t.Errorf("slot not restored:\n got %s\nwant %s", got, clean)
			}
		})
	}
	if st := p.Stats(); st.Replaced != 0 || st.Open != 1 {
		t.Errorf("stats %+v: every case should be restored in place", st)
	}
	if got := strings.TrimSpace(run(t, repo, "git", "log", "--oneline")); strings.Count(got, "\n") != 0 {
		t.Errorf("the user's branch moved:\n%s", got)
	}
}

// TestPool_ReplaceLostSlot removes a slot's directory under a holder: the
// pool makes a new slot in its place.
func TestPool_ReplaceLostSlot(t *testing.T) {
	repo, base := newTestRepo(t)
	p := openPool(t, repo, base, 1, false)
	defer closePool(t, p)
	ctx := context.Background()
	s, err := p.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	old := s.Name()
	os.Chmod(s.Dir(), 0o755)
	if err := os.RemoveAll(s.Dir()); err != nil {
		t.Fatal(err)
	}
	p.Release(s)
	s, err = p.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release(s)
	if s.Name() == old {
		t.Errorf("the lost slot %s came back", old)
	}
	if data, err := os.ReadFile(filepath.Join(s.Dir(), "a.txt")); err != nil || string(data) != "a\n" {
		t.Errorf("replacement slot: a.txt = %q, %v", data, err)
	}
	if st := p.Stats(); st.Replaced != 1 || st.Open != 1 {
		t.Errorf("stats %+v, want one replaced", st)
	}
	if n := len(linked(t, repo)); n != 1 {
		t.Errorf("%d linked worktrees, want 1 (the lost one forgotten)", n)
	}
}

func TestSlot_WriteFilesRefusesEscapes(t *testing.T) {
	repo, base := newTestRepo(t)
	p := openPool(t, repo, base, 1, false)
	defer closePool(t, p)
	s, err := p.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release(s)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(s.Dir(), "link")); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"../x", "/etc/x", ".git/config", ".git", "a/../../x", "sub/.GIT/x", "", "a//b", "./a", "link/x"} {
		t.Run(strings.ReplaceAll(path, "/", "|"), func(t *testing.T) {
			if err := s.WriteFiles(map[string][]byte{path: []byte("x")}, nil); err == nil {
				t.Errorf("WriteFiles(%q) succeeded", path)
			}
			if err := s.WriteFiles(nil, []string{path}); err == nil && path != "link/x" {
				t.Errorf("WriteFiles deleting %q succeeded", path)
			}
		})
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("something was written outside the slot: %v", entries)
	}
	if got := run(t, s.Dir(), "git", "status", "--porcelain"); got != "?? link\n" {
		t.Errorf("slot status %q: something was written", got)
	}
}

func TestSlot_ApplyRefusesBadPatches(t *testing.T) {
	repo, base := newTestRepo(t)
	p := openPool(t, repo, base, 1, false)
	defer closePool(t, p)
	s, err := p.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release(s)
	for name, patch := range map[string]string{
		"NotApplying": "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-nope\n+x\n",
		"Escaping":    "--- /dev/null\n+++ b/../escaped.txt\n@@ -0,0 +1 @@\n+x\n",
		"Garbage":     "this is not a patch\n",
	} {
		if err := s.Apply(context.Background(), []byte(patch)); err == nil {
			t.Errorf("%s: Apply succeeded", name)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(s.Dir()), "escaped.txt")); err == nil {
		t.Error("a patch wrote outside the slot")
	}
}

func TestPool_Exclusive(t *testing.T) {
	repo, base := newTestRepo(t)
	p := openPool(t, repo, base, 3, false)
	defer closePool(t, p)
	ctx := context.Background()
	a, err := p.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan []*Slot)
	go func() {
		ss, err := p.AcquireExclusive(ctx)
		if err != nil {
			t.Error(err)
		}
		got <- ss
	}()
	select {
	case <-got:
		t.Fatal("AcquireExclusive returned while a slot was held")
	case <-time.After(200 * time.Millisecond):
	}
	p.Release(a)
	ss := <-got
	if len(ss) != 2 || ss[0] == ss[1] {
		t.Fatalf("AcquireExclusive gave %d slots, want 2 distinct", len(ss))
	}
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if _, err := p.Acquire(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Acquire under an exclusive holder: %v, want a deadline", err)
	}
	for _, s := range ss {
		p.Release(s)
	}
	s, err := p.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p.Release(s)
}

func TestPool_OneSlotExclusive(t *testing.T) {
	repo, base := newTestRepo(t)
	p := openPool(t, repo, base, 1, false)
	defer closePool(t, p)
	ss, err := p.AcquireExclusive(context.Background())
	if err != nil || len(ss) != 1 {
		t.Fatalf("AcquireExclusive on one slot: %d slots, %v", len(ss), err)
	}
	p.Release(ss[0])
}

func TestPool_NoSlots(t *testing.T) {
	repo, _ := newTestRepo(t)
	p := openPool(t, repo, strings.Repeat("0", 40), 2, false)
	defer closePool(t, p)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := p.Acquire(ctx); !errors.Is(err, ErrNoSlots) {
		t.Errorf("Acquire with an unknown base: %v, want ErrNoSlots", err)
	}
	if _, err := p.AcquireExclusive(ctx); !errors.Is(err, ErrNoSlots) {
		t.Errorf("AcquireExclusive with an unknown base: %v, want ErrNoSlots", err)
	}
	if st := p.Stats(); st.Failed != 2 || st.InUse != 0 {
		t.Errorf("stats %+v", st)
	}
	if n := len(linked(t, repo)); n != 0 {
		t.Errorf("%d linked worktrees left by failed slots", n)
	}
}

func TestPool_CloseRemovesEverything(t *testing.T) {
	repo, base := newTestRepo(t)
	p := openPool(t, repo, base, 3, false)
	s, err := p.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(s.Dir(), ".git")) // removal must cope
	p.Release(s)
	closePool(t, p)
	if l := linked(t, repo); len(l) != 0 {
		t.Errorf("worktrees left: %v", l)
	}
	if entries, _ := os.ReadDir(p.Dir()); len(entries) != 0 {
		t.Errorf("slots directory not empty: %v", entries)
	}
	if _, err := p.Acquire(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Acquire after Close: %v, want ErrClosed", err)
	}
}

// TestPool_KeepAndAdopt keeps slots warm, then a new pool adopts them
// instead of making new ones, at a new base.
func TestPool_KeepAndAdopt(t *testing.T) {
	repo, base := newTestRepo(t)
	p := openPool(t, repo, base, 2, true)
	s, err := p.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p.Release(s)
	waitOpen(t, p, 2)
	closePool(t, p)
	kept := linked(t, repo)
	if len(kept) != 2 {
		t.Fatalf("%d worktrees kept, want 2", len(kept))
	}
	if n, err := Reclaim(context.Background(), repo, "", false); err != nil || n != 0 {
		t.Errorf("Reclaim of kept slots: %d, %v; want them left", n, err)
	}

	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("next\n"), 0o644)
	run(t, repo, "git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "next")
	next := strings.TrimSpace(run(t, repo, "git", "rev-parse", "HEAD"))
	q := openPool(t, repo, next, 2, false)
	waitOpen(t, q, 2)
	if st := q.Stats(); st.Adopted != 2 {
		t.Errorf("stats %+v, want 2 adopted", st)
	}
	if got := linked(t, repo); !slices.Equal(got, kept) {
		t.Errorf("worktrees %v, want the kept %v", got, kept)
	}
	s, err = q.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(s.Dir(), "a.txt")); string(data) != "next\n" {
		t.Errorf("adopted slot at the old base: a.txt = %q", data)
	}
	q.Release(s)
	closePool(t, q)
	if l := linked(t, repo); len(l) != 0 {
		t.Errorf("worktrees left: %v", l)
	}
}

func waitOpen(t *testing.T, p *Pool, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for p.Stats().Open < n {
		if time.Now().After(deadline) {
			t.Fatalf("slots not ready: %+v", p.Stats())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestPool_SetBase moves the base: slots follow when next lent out.
func TestPool_SetBase(t *testing.T) {
	repo, base := newTestRepo(t)
	p := openPool(t, repo, base, 1, false)
	defer closePool(t, p)
	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("moved\n"), 0o644)
	run(t, repo, "git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "moved")
	p.SetBase(strings.TrimSpace(run(t, repo, "git", "rev-parse", "HEAD")))
	s, err := p.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release(s)
	if data, _ := os.ReadFile(filepath.Join(s.Dir(), "a.txt")); string(data) != "moved\n" {
		t.Errorf("a.txt = %q after SetBase", data)
	}
}

// TestPool_TwoPoolsOneRepo runs two pools on one repository and slots
// directory at once: neither adopts or reclaims the other's slots.
func TestPool_TwoPoolsOneRepo(t *testing.T) {
	repo, base := newTestRepo(t)
	a := openPool(t, repo, base, 2, false)
	waitOpen(t, a, 2)
	b := openPool(t, repo, base, 2, false)
	waitOpen(t, b, 2)
	if st := b.Stats(); st.Adopted != 0 {
		t.Errorf("the second pool adopted the first's slots: %+v", st)
	}
	if n, err := Reclaim(context.Background(), repo, "", true); err != nil || n != 0 {
		t.Errorf("Reclaim with two live pools removed %d: %v", n, err)
	}
	var mu sync.Mutex
	holders := map[string]string{}
	var wg sync.WaitGroup
	for i := range 8 {
		pool, who := a, "a"
		if i%2 == 1 {
			pool, who = b, "b"
		}
		wg.Go(func() {
			for range 5 {
				s, err := pool.Acquire(context.Background())
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if h, ok := holders[s.Dir()]; ok && h != who {
					t.Errorf("slot %s lent by both pools", s.Name())
				}
				holders[s.Dir()] = who
				mu.Unlock()
				p := pool
				p.Release(s)
			}
		})
	}
	wg.Wait()
	closePool(t, a)
	closePool(t, b)
	if len(holders) != 4 {
		t.Errorf("%d slots used, want 4", len(holders))
	}
	if l := linked(t, repo); len(l) != 0 {
		t.Errorf("worktrees left: %v", l)
	}
}

// TestPool_Stress acquires, releases, takes the pool exclusively and
// cancels at random from many goroutines: no slot is ever lent twice at
// once, and every slot comes back.
func TestPool_Stress(t *testing.T) {
	repo, base := newTestRepo(t)
	p := openPool(t, repo, base, 3, false)
	defer closePool(t, p)
	var (
		mu   sync.Mutex
		lent = map[*Slot]bool{}
		wg   sync.WaitGroup
	)
	take := func(ss []*Slot) {
		mu.Lock()
		defer mu.Unlock()
		for _, s := range ss {
			if lent[s] {
				t.Errorf("slot %s lent twice", s.Name())
			}
			lent[s] = true
		}
	}
	give := func(ss []*Slot) {
		mu.Lock()
		for _, s := range ss {
			delete(lent, s)
		}
		mu.Unlock()
		for _, s := range ss {
			p.Release(s)
		}
	}
	for g := range 12 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for range 8 {
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(r.IntN(300))*time.Millisecond)
				var ss []*Slot
				var err error
				if r.IntN(6) == 0 {
					ss, err = p.AcquireExclusive(ctx)
				} else {
					var s *Slot
					if s, err = p.Acquire(ctx); err == nil {
						ss = []*Slot{s}
					}
				}
				cancel()
				if err != nil {
					if !errors.Is(err, context.DeadlineExceeded) {
						t.Errorf("acquire: %v", err)
					}
					continue
				}
				take(ss)
				if r.IntN(2) == 0 {
					os.WriteFile(filepath.Join(ss[0].Dir(), "junk"), []byte("x"), 0o644)
				}
				time.Sleep(time.Duration(r.IntN(5)) * time.Millisecond)
				give(ss)
			}
		})
	}
	wg.Wait()
	if st := p.Stats(); st.InUse != 0 || st.Open != 3 {
		t.Errorf("stats after stress %+v", st)
	}
}

// TestReclaim_DeadOwner kills a process that holds a pool with SIGKILL: its
// slots are orphans, and Reclaim removes them and git's records of them.
func TestReclaim_DeadOwner(t *testing.T) {
	repo, base := newTestRepo(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHoldPool$")
	cmd.Env = append(os.Environ(), "WORKTREEPOOL_HELPER="+repo+"\n"+base)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var sleeper int
	if _, err := fmt.Fscanf(out, "ready %d\n", &sleeper); err != nil {
		cmd.Process.Kill()
		t.Fatalf("helper: %v", err)
	}
	if n, err := Reclaim(context.Background(), repo, "", false); err != nil || n != 0 {
		t.Errorf("Reclaim while the owner lives: %d, %v", n, err)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if l := linked(t, repo); len(l) != 2 {
		t.Fatalf("%d worktrees after the kill, want the 2 orphans", len(l))
	}
	n, err := Reclaim(context.Background(), repo, "", false)
	if err != nil || n != 2 {
		t.Errorf("Reclaim: %d, %v; want 2", n, err)
	}
	if l := linked(t, repo); len(l) != 0 {
		t.Errorf("worktrees left: %v", l)
	}
	if alive(sleeper) {
		t.Errorf("process %d, started in a slot by the killed owner, is still running", sleeper)
	}
}

// startStray starts a process in the slot that leaves the slot's process
// group and session, as a test's daemon might, and returns its PID.
func startStray(s *Slot) int {
	cmd := exec.Command("sleep", "300")
	cmd.Dir = s.Dir()
	cmd.Env = append(os.Environ(), s.Env()...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		panic(err)
	}
	go cmd.Wait() // reap it when it dies
	return cmd.Process.Pid
}

// alive reports whether pid runs and is not a zombie.
func alive(pid int) bool {
	for range 50 {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return false
		}
		if _, rest, ok := strings.Cut(string(b), ") "); ok && strings.HasPrefix(rest, "Z") {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// TestPool_ReleaseKillsStrays: a process a test left running in the
// background, outside its process group, dies when the slot is released.
func TestPool_ReleaseKillsStrays(t *testing.T) {
	repo, base := newTestRepo(t)
	p := openPool(t, repo, base, 1, false)
	defer closePool(t, p)
	s, err := p.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	pid := startStray(s)
	bystander := exec.Command("sleep", "300") // runs in the slot, but untagged: a user's shell
	bystander.Dir = s.Dir()
	if err := bystander.Start(); err != nil {
		t.Fatal(err)
	}
	defer bystander.Process.Kill()
	go bystander.Wait()
	p.Release(s)
	if alive(pid) {
		t.Errorf("stray process %d still runs after release", pid)
	}
	if !alive(bystander.Process.Pid) {
		t.Error("an untagged process in the slot was killed")
	}
}

// TestHelperHoldPool is not a test: TestReclaim_DeadOwner runs it in a
// child process that opens a pool of two, says so, and waits to be killed.
func TestHelperHoldPool(t *testing.T) {
	arg := os.Getenv("WORKTREEPOOL_HELPER")
	if arg == "" {
		t.Skip("helper process")
	}
	repo, base, _ := strings.Cut(arg, "\n")
	p, err := Open(context.Background(), Options{Repo: repo, Base: base, Size: 2,
		MachineLock: filepath.Join(os.TempDir(), fmt.Sprintf("machine-%d.lock", os.Getpid()))})
	if err != nil {
		os.Exit(1)
	}
	defer os.Remove(filepath.Join(os.TempDir(), fmt.Sprintf("machine-%d.lock", os.Getpid())))
	s, err := p.Acquire(context.Background())
	if err != nil {
		os.Exit(1)
	}
	sleeper := startStray(s)
	for p.Stats().Open < 2 {
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Printf("ready %d\n", sleeper)
	time.Sleep(time.Minute)
	os.Exit(1)
}

func TestParseStatus(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   string
		want slotStatus
	}{
		{"Clean", "# branch.oid abc\x00# branch.head (detached)\x00", slotStatus{head: "abc"}},
		{"Changed", "# branch.oid abc\x001 .M N... 100644 100644 100644 h1 h2 a b.txt\x001 .D N... 100644 100644 000000 h1 h2 c\x00",
			slotStatus{head: "abc", changed: []string{"a b.txt", "c"}}},
		{"Staged", "# branch.oid abc\x001 M. N... 100644 100644 100644 h1 h2 a\x00", slotStatus{head: "abc", index: true}},
		{"Extra", "# branch.oid abc\x00? new\x00! build/\x00", slotStatus{head: "abc", extra: []string{"new", "build/"}}},
		{"Conflict", "# branch.oid abc\x00u UU N... 1 2 3 4 h1 h2 h3 f\x00", slotStatus{head: "abc", index: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStatus([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	if _, err := parseStatus([]byte("1 .M short\x00")); err == nil {
		t.Error("a malformed record parsed")
	}
}

// TestPool_MachineLock: an exclusive holder in one pool waits for another
// pool's holders, and shuts them out while it holds. It does as it would
// across processes, since flock locks of two open files conflict within a
// process too.
func TestPool_MachineLock(t *testing.T) {
	repo, base := newTestRepo(t)
	lock := filepath.Join(t.TempDir(), "machine.lock")
	open := func() *Pool {
		p, err := Open(context.Background(), Options{Repo: repo, Base: base, Size: 2, MachineLock: lock})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := open(), open()
	defer closePool(t, a)
	defer closePool(t, b)
	ctx := context.Background()
	s, err := b.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	if _, err := a.AcquireExclusive(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("AcquireExclusive beside another pool's holder: %v, want it to wait", err)
	}
	cancel()
	b.Release(s)
	ss, err := a.AcquireExclusive(ctx)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel = context.WithTimeout(ctx, 300*time.Millisecond)
	if _, err := b.Acquire(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Acquire beside another pool's exclusive holder: %v, want it to wait", err)
	}
	cancel()
	for _, s := range ss {
		a.Release(s)
	}
	s, err = b.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b.Release(s)
}

// TestPool_MachineLockPrefersExclusive: while an exclusive holder waits for
// another pool's holder, new holders wait behind it instead of starving it.
func TestPool_MachineLockPrefersExclusive(t *testing.T) {
	repo, base := newTestRepo(t)
	lock := filepath.Join(t.TempDir(), "machine.lock")
	open := func() *Pool {
		p, err := Open(context.Background(), Options{Repo: repo, Base: base, Size: 2, MachineLock: lock})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := open(), open()
	defer closePool(t, a)
	defer closePool(t, b)
	ctx := context.Background()
	held, err := b.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	excl := make(chan []*Slot)
	go func() {
		ss, err := a.AcquireExclusive(ctx)
		if err != nil {
			t.Error(err)
		}
		excl <- ss
	}()
	// Wait until a's exclusive holder is registered as waiting for the
	// machine lock b holds: what the pool itself reports, not a guess.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		if w, ok := a.MachineWait(); ok && w.Exclusive {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the exclusive holder never waited for the machine lock")
		}
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	if _, err := b.Acquire(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a new holder got in ahead of a waiting exclusive one: %v", err)
	}
	cancel()
	b.Release(held)
	for _, s := range <-excl {
		a.Release(s)
	}
}

// TestPool_BranchCheckoutInSlot has a test check out one of the user's
// branches in its slot. Restoring the slot must not move that branch, or any
// ref of the user's, and must leave the slot's HEAD detached at base again.
func TestPool_BranchCheckoutInSlot(t *testing.T) {
	repo, base := newTestRepo(t)
	git := func(dir string, args ...string) string {
		return run(t, dir, "git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
	}
	git(repo, "branch", "same") // at base
	git(repo, "checkout", "-q", "-b", "other")
	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("other\n"), 0o644)
	git(repo, "commit", "-q", "-am", "other")
	git(repo, "checkout", "-q", "main")
	refs := git(repo, "for-each-ref", "--format=%(refname) %(objectname)")

	p := openPool(t, repo, base, 1, false)
	defer closePool(t, p)
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		test func(dir string)
	}{
		{"OtherCommit", func(d string) { git(d, "checkout", "-q", "other") }},
		{"SameCommit", func(d string) { git(d, "checkout", "-q", "same") }},
		{"SameCommitThenStage", func(d string) {
			git(d, "checkout", "-q", "same")
			os.WriteFile(filepath.Join(d, "a.txt"), []byte("staged\n"), 0o644)
			git(d, "add", "a.txt")
		}},
		{"OtherThenEdit", func(d string) {
			git(d, "checkout", "-q", "other")
			os.WriteFile(filepath.Join(d, "a.txt"), []byte("edited\n"), 0o644)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := p.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			tt.test(s.Dir())
			p.Release(s)
			if got := git(repo, "for-each-ref", "--format=%(refname) %(objectname)"); got != refs {
				t.Errorf("the user's refs moved:\n got %s\nwant %s", got, refs)
			}
			s, err = p.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Release(s)
			head, err := os.ReadFile(filepath.Join(s.gitDir, "HEAD"))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(string(head)); got != base {
				t.Errorf("slot HEAD is %q, want detached at %s", got, base)
			}
		})
	}
	if log := git(repo, "reflog", "show", "other"); strings.Contains(log, "reset:") {
		t.Errorf("other's reflog shows a reset:\n%s", log)
	}
}

// poisonThroughLink writes into the tracked file target through a hard link
// made at link, then removes the link, as a hostile test would. No watch of
// target's directory sees the write.
func poisonThroughLink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Link(target, link); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(link, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("poison\n")
	f.Close()
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
}

// TestSlot_VerifyHardLinkPoison poisons slots through hard links: a test
// writing into its own slot under another name, and into a sibling slot at
// -j 2. Before a benchmark (AcquireExclusive), and at every reset with
// Paranoid, the slots are proven clean and restored.
func TestSlot_VerifyHardLinkPoison(t *testing.T) {
	repo, base := newTestRepo(t)
	ctx := context.Background()
	clean := func(t *testing.T, s *Slot) {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(s.Dir(), "a.txt"))
		if err != nil || string(data) != "a\n" {
			t.Errorf("slot %s: a.txt = %q, %v; want base's", s.Name(), data, err)
		}
	}
	t.Run("OwnSlot", func(t *testing.T) {
		p := openPool(t, repo, base, 1, false)
		defer closePool(t, p)
		s, err := p.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		poisonThroughLink(t, filepath.Join(s.Dir(), "a.txt"), filepath.Join(s.Dir(), "link"))
		p.Release(s)
		got, err := p.AcquireExclusive(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range got {
			clean(t, s)
			p.Release(s)
		}
	})
	t.Run("Sibling", func(t *testing.T) {
		p := openPool(t, repo, base, 2, false)
		defer closePool(t, p)
		a, err := p.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		b, err := p.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		poisonThroughLink(t, filepath.Join(a.Dir(), "a.txt"), filepath.Join(b.Dir(), "link"))
		p.Release(a)
		p.Release(b)
		got, err := p.AcquireExclusive(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 {
			t.Fatalf("AcquireExclusive gave %d slots, want 2", len(got))
		}
		for _, s := range got {
			clean(t, s)
			p.Release(s)
		}
	})
	t.Run("LinkKept", func(t *testing.T) {
		// The other link outlives the test: the slot's file is made anew,
		// so that later writes through it miss the slot.
		p := openPool(t, repo, base, 1, false)
		defer closePool(t, p)
		s, err := p.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		outside := filepath.Join(filepath.Dir(s.Dir()), "outside-link")
		if err := os.Link(filepath.Join(s.Dir(), "a.txt"), outside); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(outside)
		p.Release(s)
		got, err := p.AcquireExclusive(ctx)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(outside, []byte("late poison\n"), 0o644)
		for _, s := range got {
			clean(t, s)
			p.Release(s)
		}
	})
	t.Run("Paranoid", func(t *testing.T) {
		p, err := Open(ctx, Options{Repo: repo, Base: base, Size: 1, Paranoid: true, MachineLock: privateLock(t)})
		if err != nil {
			t.Fatal(err)
		}
		defer closePool(t, p)
		s, err := p.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		poisonThroughLink(t, filepath.Join(s.Dir(), "a.txt"), filepath.Join(s.Dir(), "link"))
		p.Release(s)
		s, err = p.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		clean(t, s)
		p.Release(s)
	})
}

// TestSlot_VerifyAfterUncontainedRun poisons a slot through a hard link, as
// a survivor of a run would. It does so after a run that proc could not
// prove left nothing running. The next reset proves the slot clean by
// content, without Paranoid. Before any such run (in a fresh process), the
// quick reset trusts the watch and misses it: that is the control.
func TestSlot_VerifyAfterUncontainedRun(t *testing.T) {
	repo, base := newTestRepo(t)
	ctx := context.Background()
	p := openPool(t, repo, base, 1, false)
	defer closePool(t, p)
	poisoned := func() bool {
		s, err := p.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// From outside the slot, where no watch looks, as a survivor would.
		poisonThroughLink(t, filepath.Join(s.Dir(), "a.txt"), filepath.Join(filepath.Dir(s.Dir()), "link"))
		p.Release(s)
		s, err = p.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Release(s)
		data, _ := os.ReadFile(filepath.Join(s.Dir(), "a.txt"))
		return string(data) != "a\n"
	}
	if proc.Uncontained() == 0 {
		if !poisoned() {
			t.Error("control: a quick reset caught a write through a hard link, so this test shows nothing")
		}
		for _, s := range mustAcquireExclusive(t, p) { // restores the slot for the next round
			p.Release(s)
		}
	}
	t.Setenv(proc.ContainEnv, proc.ContainGroup)
	res, err := proc.Run(ctx, proc.Cmd{Args: proc.Shell("true"), CPU: -1})
	if err != nil || res.Contained {
		t.Fatalf("a run with the process group alone: contained %v (%v), want false", res.Contained, err)
	}
	if poisoned() {
		t.Error("after an uncontained run, a reset left a slot poisoned through a hard link")
	}
}

func mustAcquireExclusive(t *testing.T, p *Pool) []*Slot {
	t.Helper()
	got, err := p.AcquireExclusive(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return got
}
