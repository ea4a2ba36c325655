package worktreepool

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/optimizer-dev/optimizer/proc"
)

// Reset restores the slot to base: see the package doc. The holder may call
// it to measure base in the same slot; Release does it anyway. It proves the
// slot clean by content (Verify), instead of trusting the watch, in two
// cases. One is when the pool is paranoid. The other is when a run in this
// process may have left a process running (proc.Uncontained). Such a process
// could have written into any slot, even through hard links the watch cannot
// see.
func (s *Slot) Reset(ctx context.Context) error {
	if err := s.detach(ctx); err != nil {
		return err
	}
	if s.paranoid || proc.Uncontained() > 0 {
		s.resets.count(false)
		dirty, err := s.Verify(ctx)
		if dirty > 0 && s.log != nil {
			s.log.Debug("paranoid reset restored paths", "slot", s.name, "paths", dirty)
		}
		return err
	}
	if s.quickReset(ctx) {
		s.resets.count(true)
		return nil
	}
	s.resets.count(false)
	return s.fullReset(ctx)
}

// resetCounts counts a pool's quick and full resets.
type resetCounts struct{ quick, full atomic.Int64 }

func (c *resetCounts) count(quick bool) {
	switch {
	case c == nil:
	case quick:
		c.quick.Add(1)
	default:
		c.full.Add(1)
	}
}

// fullReset restores the slot from one full git status, and watches it
// afresh.
func (s *Slot) fullReset(ctx context.Context) error {
	st, err := s.status(ctx)
	if err != nil {
		return err
	}
	if st.head != s.base || st.index {
		return s.hardReset(ctx)
	}
	if err := s.restore(ctx, st); err != nil {
		return s.hardReset(ctx)
	}
	s.startInotify()
	return nil
}

// quickReset restores the slot from what its inotify saw change. Tracked
// files it saw are rewritten from the index and paths that base lacks are
// removed, with no git status at all. Only when that is not enough (a
// tracked directory changed, say) does a git status of those paths say what
// to restore.
//
// It reports false when it cannot vouch for the result. That is when there
// is no inotify, events were lost, or the slot's git directory changed
// (HEAD or the index may have moved). It also reports false with too many
// paths, or on an error. It has then changed nothing that a full reset
// would not redo.
func (s *Slot) quickReset(ctx context.Context) bool {
	if s.inotify == nil {
		return false
	}
	ch := s.inotify.collect()
	if ch.full() {
		return false
	}
	if len(ch.paths) > 0 {
		st, v := s.classify(ch, s.tracked.get(ctx, s.base))
		if v == statusAll {
			return false
		}
		if v == statusPaths {
			paths := make([]string, 0, len(ch.paths))
			for p := range ch.paths {
				paths = append(paths, p)
			}
			sort.Strings(paths)
			var err error
			st, err = s.status(ctx, paths...)
			if err != nil || st.head != s.base || st.index {
				return false
			}
		}
		if err := s.restore(ctx, st); err != nil {
			return false
		}
	}
	// What the restore itself changed is known: drop it. Watches of moved or
	// deleted directories are made anew.
	after := s.inotify.collect()
	if ch.moved || after.moved || after.lost {
		s.startInotify()
	}
	return true
}

// startInotify starts watching the slot afresh; the slot must be clean. A slot
// that cannot be watched is restored with full statuses.
func (s *Slot) startInotify() {
	s.stopInotify()
	if s.noWatch {
		return
	}
	w, err := newInotify(s.dir, s.gitDir)
	if err != nil {
		if !errors.Is(err, errNoInotify) && s.log != nil {
			s.log.Warn("watch slot: its resets will read a full git status", "slot", s.name, "err", err)
		}
		return
	}
	s.inotify = w
}

// stopInotify stops watching the slot.
func (s *Slot) stopInotify() {
	if s.inotify != nil {
		s.inotify.close()
		s.inotify = nil
	}
}

// restore removes the paths a candidate or its tests added, then rewrites
// the tracked files they changed from the index, which is still at base.
func (s *Slot) restore(ctx context.Context, st slotStatus) error {
	if len(st.extra) > 0 {
		root, err := os.OpenRoot(s.dir)
		if err != nil {
			return err
		}
		for _, p := range st.extra {
			if err := removeAll(root, filepath.FromSlash(strings.TrimSuffix(p, "/"))); err != nil {
				root.Close()
				return err
			}
		}
		root.Close()
	}
	if len(st.changed) == 0 {
		return nil
	}
	var in bytes.Buffer
	for _, p := range st.changed {
		in.WriteString(p)
		in.WriteByte(0)
	}
	_, err := s.git(ctx, in.Bytes(), "checkout-index", "--force", "--quiet", "-u", "-z", "--stdin")
	return err
}

// removeAll removes name under root, making directories writable first if a
// test left them read-only.
func removeAll(root *os.Root, name string) error {
	err := root.RemoveAll(name)
	if err == nil || !errors.Is(err, fs.ErrPermission) {
		return err
	}
	fs.WalkDir(root.FS(), filepath.ToSlash(name), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			root.Chmod(filepath.FromSlash(p), 0o755)
		}
		return nil
	})
	return root.RemoveAll(name)
}

// hardReset moves HEAD, index and work tree back to base and removes every
// untracked and ignored file, then checks that the slot is clean and
// watches it afresh.
func (s *Slot) hardReset(ctx context.Context) error {
	if err := s.detach(ctx); err != nil {
		return err
	}
	if _, err := s.git(ctx, nil, "reset", "--quiet", "--hard", s.base); err != nil {
		return fmt.Errorf("reset slot %s: %w", s.name, err)
	}
	if _, err := s.git(ctx, nil, "clean", "-ffdqx"); err != nil {
		return fmt.Errorf("clean slot %s: %w", s.name, err)
	}
	st, err := s.status(ctx)
	if err != nil {
		return err
	}
	if !st.clean() || st.head != s.base {
		s.stopInotify()
		return fmt.Errorf("slot %s is not clean after a reset: %d changed, %d extra paths", s.name, len(st.changed), len(st.extra))
	}
	s.startInotify()
	return nil
}

// detach points the slot's HEAD straight at base again if it names a
// branch. A test that ran git checkout BRANCH in the slot attached it to one
// of the user's branches, and a reset with HEAD attached would move that
// branch. Only HEAD itself is written (update-ref --no-deref); the index
// and work tree are left for the reset. It is a file read when HEAD is
// detached, and runs before every reset and every lending of a slot.
func (s *Slot) detach(ctx context.Context) error {
	head, err := os.ReadFile(filepath.Join(s.gitDir, "HEAD"))
	if err == nil && !bytes.HasPrefix(head, []byte("ref:")) {
		return nil
	}
	if _, err := s.git(ctx, nil, "update-ref", "--no-deref", "-m", "optimizer: detach slot", "HEAD", s.base); err != nil {
		return fmt.Errorf("detach slot %s: %w", s.name, err)
	}
	if s.log != nil {
		s.log.Warn("slot HEAD was on a branch: detached it", "slot", s.name, "head", strings.TrimSpace(string(head)))
	}
	return nil
}
