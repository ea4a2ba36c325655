package worktreepool

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/optimizer-dev/optimizer/proc"
)

// keptMark is the content of a kept slot's lock file: no process owns the
// slot, and Close left it warm on purpose.
const keptMark = "kept\n"

// lockFile is a slot's NAME.lock, flocked for as long as a pool owns the slot.
// The kernel drops the flock when its process dies, so a lock that can be
// taken belongs to nobody.
type lockFile struct {
	path string
	f    *os.File
}

// newLock creates the lock file at path already locked: it is made and
// flocked under a temporary name, then renamed into place, so no other
// process ever sees it unlocked.
func newLock(path string) (*lockFile, error) {
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("make slot lock: %w", err)
	}
	l := &lockFile{path: tmp, f: f}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		l.remove()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := l.write(ownerMark()); err != nil {
		l.remove()
		return nil, err
	}
	if err := os.Rename(tmp, path); err != nil {
		l.remove()
		return nil, fmt.Errorf("make slot lock: %w", err)
	}
	l.path = path
	return l, nil
}

// takeLock takes the flock of the existing lock file at path without
// waiting for a live owner. It returns nil when the file does not exist,
// when another process holds it, or when the file went away meanwhile. A
// remover unlinks the file while holding the flock, so a lock taken on an
// unlinked file means nothing.
//
// A lock whose file names a dead owner is waited for, up to orphanWait.
// For a moment after the owner is killed, a child it was starting can still
// hold a copy of the descriptor (between fork and exec, until Pdeathsig
// kills it). The slot would then be taken for owned. The wait ends early,
// with ctx's error, when ctx is done.
func takeLock(ctx context.Context, path string) (*lockFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open slot lock: %w", err)
	}
	deadline := time.Now().Add(orphanWait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if ownerAlive(f) || time.Now().After(deadline) {
			f.Close()
			return nil, nil
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	held, err1 := f.Stat()
	now, err2 := os.Stat(path)
	if err1 != nil || err2 != nil || !os.SameFile(held, now) {
		f.Close()
		return nil, nil
	}
	return &lockFile{path: path, f: f}, nil
}

// write replaces the lock file's content.
func (l *lockFile) write(s string) error {
	if err := l.f.Truncate(0); err != nil {
		return fmt.Errorf("write slot lock: %w", err)
	}
	if _, err := l.f.WriteAt([]byte(s), 0); err != nil {
		return fmt.Errorf("write slot lock: %w", err)
	}
	return nil
}

// kept reports whether the lock file says its slot was kept on purpose.
func (l *lockFile) kept() bool {
	b := make([]byte, 64)
	n, _ := l.f.ReadAt(b, 0)
	return strings.HasPrefix(string(b[:n]), strings.TrimSpace(keptMark))
}

// release drops the flock, leaving the file.
func (l *lockFile) release() { l.f.Close() }

// remove unlinks the file while still holding its flock, then drops it.
func (l *lockFile) remove() {
	os.Remove(l.path)
	l.f.Close()
}

// ownerMark is what a live owner writes into its slots' lock files.
func ownerMark() string { return fmt.Sprintf("pid %d\n", os.Getpid()) }

// orphanWait bounds how long takeLock waits for the flock of a slot whose
// owner is dead.
const orphanWait = 3 * time.Second

// ownerAlive reports whether the lock file f may belong to a live process:
// it names a PID that exists, or it names none (kept, or being written).
// A reused PID counts as alive, which only errs towards leaving a slot.
func ownerAlive(f *os.File) bool {
	b := make([]byte, 64)
	n, _ := f.ReadAt(b, 0)
	var pid int
	if _, err := fmt.Sscanf(string(b[:n]), "pid %d", &pid); err != nil || pid <= 0 {
		return true
	}
	return proc.Exists(pid)
}
