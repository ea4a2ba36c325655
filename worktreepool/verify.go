package worktreepool

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
)

// Verify proves the slot clean, at base, before it serves base's tests or a
// benchmark, and restores whatever is not. A quick reset trusts what the
// slot's inotify watch saw. A watch cannot see a tracked file written
// through a hard link made elsewhere: in the slot under a name since
// removed, or from a sibling slot. The kernel reports a write only to the
// directory of the name it was made through. So Verify does what the watch
// cannot:
//   - every regular file in the slot with more than one link is removed, and
//     a tracked one is written anew from the index. So whoever holds the
//     other link can no longer write into the slot;
//   - one full git status compares every tracked file with the index, and
//     lists every untracked and ignored path. It compares by stat, and by
//     content where the stat differs: a write changes a file's ctime
//     whatever path it came through. Whatever it finds is restored.
//
// It returns how many paths were not clean (0 for a clean slot). Only the
// holder may call it. It costs a walk of the tree and one git status.
func (s *Slot) Verify(ctx context.Context) (int, error) {
	if err := s.detach(ctx); err != nil {
		return 0, err
	}
	st, err := s.status(ctx)
	if err != nil {
		return 0, err
	}
	dirty := len(st.changed) + len(st.extra)
	if st.head != s.base || st.index {
		dirty++
	}
	if s.breakLinks() > 0 {
		if st, err = s.status(ctx); err != nil {
			return dirty, err
		}
	}
	if st.clean() && st.head == s.base {
		return dirty, nil
	}
	if st.head != s.base || st.index {
		return dirty, s.hardReset(ctx)
	}
	if err := s.restore(ctx, st); err != nil {
		return dirty, s.hardReset(ctx)
	}
	s.startInotify()
	return dirty, nil
}

// Sound reports whether the slot's work tree and git directory still exist.
// When they do not, what failed in the slot is the environment's fault (the
// slots directory was deleted, say), not the candidate's.
func (s *Slot) Sound() bool {
	fi, err := os.Stat(s.dir)
	if err != nil || !fi.IsDir() {
		return false
	}
	_, err = os.Stat(filepath.Join(s.gitDir, "HEAD"))
	return err == nil
}

// breakLinks removes every regular file in the slot's work tree that has
// another hard link, and returns how many it removed. The restore that
// follows writes the tracked ones anew, as files of their own.
func (s *Slot) breakLinks() int {
	n := 0
	filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: the status that follows says what is wrong
		}
		if filepath.Dir(p) == s.dir && d.Name() == ".git" {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil // the slot's own gitdir file: repair's to mend
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if fi, err := d.Info(); err == nil && hardLinked(fi) && os.Remove(p) == nil {
			n++
		}
		return nil
	})
	return n
}
