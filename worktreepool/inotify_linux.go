package worktreepool

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// watchMask is every change to a directory's entries or to their content,
// mode or links. Symlinks are not followed, and a path that is no
// directory is not watched.
const watchMask = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE |
	unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_DONT_FOLLOW | unix.IN_ONLYDIR

// inotify reports which paths of a slot's work tree changed. It keeps one
// inotify watch on every directory of the tree and one on the slot's git
// directory. Since inotify watches inodes, it sees a change made through
// any path into the tree. It misses writes through a shared mmap after its
// file was closed, and writes through a hard link from outside the tree.
//
// An inotify is used by one goroutine at a time: the slot's holder, or the
// pool restoring the slot.
type inotify struct {
	fd      int
	dirs    map[int32]string // watch descriptor -> directory, slash-relative ("" is the root)
	watched map[string]bool  // the directories in dirs
	gitWd   int32
	buf     []byte
}

// newInotify watches the work tree at root, which must be clean, and the
// slot's git directory.
func newInotify(root, gitDir string) (*inotify, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("watch slot: %w", err)
	}
	w := &inotify{fd: fd, dirs: map[int32]string{}, watched: map[string]bool{}, buf: make([]byte, 64<<10)}
	wd, err := unix.InotifyAddWatch(fd, gitDir, unix.IN_MODIFY|unix.IN_ATTRIB|unix.IN_CREATE|unix.IN_DELETE|
		unix.IN_MOVED_FROM|unix.IN_MOVED_TO|unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_ONLYDIR)
	if err != nil {
		w.close()
		return nil, fmt.Errorf("watch %s: %w", gitDir, err)
	}
	w.gitWd = int32(wd)
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel == "." {
			rel = ""
		}
		wd, err := unix.InotifyAddWatch(fd, p, watchMask)
		if err != nil {
			return fmt.Errorf("watch %s: %w", p, err)
		}
		w.dirs[int32(wd)] = rel
		w.watched[rel] = true
		return nil
	})
	if err != nil {
		w.close()
		return nil, err
	}
	return w, nil
}

// collect reads every event queued since the last call, without waiting.
func (w *inotify) collect() changes {
	c := changes{paths: map[string]bool{}}
	for {
		n, err := unix.Read(w.fd, w.buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if errors.Is(err, unix.EAGAIN) {
			return c
		}
		if err != nil || n <= 0 {
			c.lost = true
			return c
		}
		w.parse(w.buf[:n], &c)
	}
}

// parse adds a buffer of inotify events to c.
func (w *inotify) parse(b []byte, c *changes) {
	for len(b) >= unix.SizeofInotifyEvent {
		wd := int32(binary.NativeEndian.Uint32(b[0:]))
		mask := binary.NativeEndian.Uint32(b[4:])
		n := int(binary.NativeEndian.Uint32(b[12:]))
		if unix.SizeofInotifyEvent+n > len(b) {
			c.lost = true
			return
		}
		name := string(trimNUL(b[unix.SizeofInotifyEvent : unix.SizeofInotifyEvent+n]))
		b = b[unix.SizeofInotifyEvent+n:]
		w.event(wd, mask, name, c)
	}
}

func (w *inotify) event(wd int32, mask uint32, name string, c *changes) {
	switch {
	case mask&unix.IN_Q_OVERFLOW != 0:
		c.lost = true
		return
	case wd == w.gitWd:
		c.gitDir = true
		return
	}
	dir, ok := w.dirs[wd]
	if !ok {
		return // a watch removed earlier, whose last events arrive late
	}
	if mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_IGNORED) != 0 {
		c.moved = true
		if dir == "" {
			c.lost = true
		} else {
			c.paths[dir] = true
		}
		return
	}
	if name == "" {
		if dir == "" {
			c.lost = true // the root's own mode or times changed
		} else {
			c.paths[dir] = true
		}
		return
	}
	p := path.Join(dir, name)
	if p == ".git" {
		return // the .git file: repair rewrites it before every reset
	}
	c.paths[p] = true
	if mask&(unix.IN_DELETE|unix.IN_MOVED_FROM|unix.IN_MOVED_TO) != 0 && w.watched[p] {
		c.moved = true
	}
}

func trimNUL(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	return b
}

// close stops watching.
func (w *inotify) close() { unix.Close(w.fd) }
