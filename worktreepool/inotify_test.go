package worktreepool

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestSlot_ResetWatched runs candidates one after another in one slot, each
// messing it up in its own way. It checks that every reset leaves the slot
// exactly as clean as a new one, with the watch and without it (NoWatch).
// With the watch, the resets that only touched the work tree must be quick.
func TestSlot_ResetWatched(t *testing.T) {
	cases := []struct {
		name string
		mess func(dir string)
		full bool // the git directory changed, events were lost, or a hard link hides a name: a full reset is expected
	}{
		{"EditTracked", func(d string) { write(d, "a.txt", "x") }, false},
		{"EditSameFileAgain", func(d string) { write(d, "a.txt", "y") }, false},
		{"Nothing", func(d string) {}, false},
		{"NewFileInNewDirs", func(d string) { write(d, "new/deep/er/f", "f") }, false},
		{"IgnoredBuildDir", func(d string) { write(d, "build/out/bin", "b"); write(d, "sub/x.log", "l") }, false},
		{"DeleteTrackedDir", func(d string) { os.RemoveAll(filepath.Join(d, "sub")) }, false},
		{"EditAfterDirRecreated", func(d string) { write(d, "sub/b.txt", "changed in a recreated dir") }, false},
		{"RenameTrackedDir", func(d string) { os.Rename(filepath.Join(d, "sub"), filepath.Join(d, "moved")) }, false},
		{"EditAfterRename", func(d string) { write(d, "sub/c.sh", "echo changed") }, false},
		{"MoveTrackedDirOut", func(d string) { os.Rename(filepath.Join(d, "sub"), filepath.Join(t.TempDir(), "out")) }, false},
		{"FileBecomesDir", func(d string) { os.Remove(filepath.Join(d, "a.txt")); write(d, "a.txt/inner", "i") }, false},
		{"ChmodTracked", func(d string) { os.Chmod(filepath.Join(d, "sub/c.sh"), 0o755) }, false},
		{"TruncateTracked", func(d string) { os.Truncate(filepath.Join(d, "sub/b.txt"), 0) }, false},
		{"HardLinkAdded", func(d string) { os.Link(filepath.Join(d, "a.txt"), filepath.Join(d, "sub/link")) }, true},
		{"SymlinkDirEdit", func(d string) {
			os.Symlink("sub", filepath.Join(d, "ln"))
			write(d, "ln/b.txt", "through a symlink")
		}, false},
		{"ManyFiles", func(d string) {
			for i := range 20000 { // more events than inotify queues by default
				write(d, fmt.Sprintf("many/%d/%d", i/100, i), "m")
			}
			write(d, "a.txt", "lost among many")
		}, false},
		{"Staged", func(d string) { write(d, "a.txt", "staged"); run(t, d, "git", "add", "a.txt") }, true},
		{"EditAfterFull", func(d string) { write(d, "sub/b.txt", "after a full reset") }, false},
	}
	for _, noWatch := range []bool{false, true} {
		t.Run(fmt.Sprintf("NoWatch=%v", noWatch), func(t *testing.T) {
			repo, base := newTestRepo(t)
			p, err := Open(context.Background(), Options{Repo: repo, Base: base, Size: 1, NoWatch: noWatch,
				MachineLock: filepath.Join(t.TempDir(), "machine.lock")})
			if err != nil {
				t.Fatal(err)
			}
			defer closePool(t, p)
			ctx := context.Background()
			s, err := p.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			clean := tree(t, s)
			p.Release(s)
			for _, tt := range cases {
				before := p.Stats()
				s, err := p.Acquire(ctx)
				if err != nil {
					t.Fatal(err)
				}
				tt.mess(s.Dir())
				p.Release(s)
				after := p.Stats()
				s, err = p.Acquire(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if got := tree(t, s); got != clean {
					t.Errorf("%s: slot not restored:\n got %s\nwant %s", tt.name, got, clean)
				}
				p.Release(s) // clean already: a quick reset with nothing to do
				quick := after.QuickResets - before.QuickResets
				switch {
				case noWatch || runtime.GOOS != "linux":
					if quick != 0 {
						t.Errorf("%s: %d quick resets without a watch", tt.name, quick)
					}
				case tt.full && quick != 0, !tt.full && tt.name != "ManyFiles" && quick != 1:
					t.Errorf("%s: %d quick resets, want full=%v", tt.name, quick, tt.full)
				}
			}
			if st := p.Stats(); st.Replaced != 0 {
				t.Errorf("stats %+v: every case should be restored in place", st)
			}
		})
	}
}

func write(dir, name, content string) {
	p := filepath.Join(dir, filepath.FromSlash(name))
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(content), 0o644)
}

// TestSlot_ResetHardLink: a tracked file written through a hard link made in
// the slot is restored, although the watch saw only the link's name.
func TestSlot_ResetHardLink(t *testing.T) {
	repo, base := newTestRepo(t)
	p, err := Open(context.Background(), Options{Repo: repo, Base: base, Size: 1,
		MachineLock: filepath.Join(t.TempDir(), "machine.lock")})
	if err != nil {
		t.Fatal(err)
	}
	defer closePool(t, p)
	ctx := context.Background()
	s, err := p.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	clean := tree(t, s)
	p.Release(s)
	s, err = p.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(s.Dir(), "a.txt"), filepath.Join(s.Dir(), "sub/link")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(s.Dir(), "sub/link"), []byte("written through a link"), 0o644)
	p.Release(s)
	s, err = p.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release(s)
	if got := tree(t, s); got != clean {
		t.Errorf("slot not restored:\n got %s\nwant %s", got, clean)
	}
}
