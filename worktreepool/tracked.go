package worktreepool

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// maxTracked bounds the base trees whose paths a pool keeps in memory (about
// 100 bytes a path); a bigger tree's slots are restored through git status.
const maxTracked = 200_000

// entryKind is what a path is in base's tree.
type entryKind uint8

const (
	untracked    entryKind = iota // not in base: an added path, to be removed
	trackedFile                   // a file or symlink: rewritten from the index
	trackedDir                    // a directory: only a status can say what changed in it
	trackedOther                  // a submodule: left to a status
)

// trackedPaths is the set of paths in one base tree.
type trackedPaths struct {
	kinds map[string]entryKind
}

func (t *trackedPaths) kind(p string) entryKind { return t.kinds[p] }

// trackedCache keeps the paths of the last bases a pool's slots were reset
// to. Its zero value is ready; it is safe for concurrent use.
type trackedCache struct {
	mu    sync.Mutex
	repo  string
	bases map[string]*trackedOnce
}

type trackedOnce struct {
	once  sync.Once
	paths *trackedPaths // nil when the tree could not be read, or is too big
}

// get returns base's paths, reading them the first time with one git
// ls-tree; nil when they cannot be had.
func (c *trackedCache) get(ctx context.Context, base string) *trackedPaths {
	c.mu.Lock()
	if c.bases == nil {
		c.bases = map[string]*trackedOnce{}
	}
	o := c.bases[base]
	if o == nil {
		if len(c.bases) >= 2 {
			clear(c.bases) // a pool moves base rarely: drop all, keep only the new one
		}
		o = &trackedOnce{}
		c.bases[base] = o
	}
	c.mu.Unlock()
	o.once.Do(func() { o.paths = readTracked(ctx, c.repo, base) })
	return o.paths
}

// readTracked lists base's tree, or returns nil.
func readTracked(ctx context.Context, repo, base string) *trackedPaths {
	out, err := inRepo(ctx, repo, "ls-tree", "-r", "-t", "-z", "--full-tree", base)
	if err != nil {
		return nil
	}
	t := &trackedPaths{kinds: map[string]entryKind{}}
	for rec := range bytes.SplitSeq(out, []byte{0}) {
		meta, name, ok := bytes.Cut(rec, []byte("\t"))
		if !ok {
			continue
		}
		if len(t.kinds) >= maxTracked {
			return nil
		}
		k := trackedFile
		switch {
		case bytes.HasPrefix(meta, []byte("040000 ")):
			k = trackedDir
		case bytes.HasPrefix(meta, []byte("160000 ")):
			k = trackedOther
		}
		t.kinds[string(name)] = k
	}
	return t
}

// verdict is what classify decided.
type verdict int

const (
	restoreAsIs verdict = iota // the slotStatus says all there is to restore
	statusPaths                // a git status of the changed paths must say
	statusAll                  // only a full git status can say
)

// classify turns what a watch saw into what a restore does, without asking
// git: tracked files are rewritten from the index, and paths that base does
// not have are removed. A tracked directory or submodule that changed, or a
// tracked file that became a directory, needs a status of those paths. A file
// with another hard link needs a full status: a tracked file may have been
// written through it, under a name the watch never saw. So does an added
// path that is gone again, which may have been such a link.
func (s *Slot) classify(ch changes, t *trackedPaths) (slotStatus, verdict) {
	st := slotStatus{head: s.base}
	v := restoreAsIs
	if t == nil || ch.moved {
		v = statusPaths
	}
	for p := range ch.paths {
		k := untracked
		if t != nil {
			k = t.kind(p)
		}
		fi, err := lstatIn(s.dir, p)
		switch {
		case err == nil && hardLinked(fi):
			return st, statusAll
		case k == trackedDir, k == trackedOther, k == trackedFile && err == nil && fi.IsDir():
			v = statusPaths
		case k == trackedFile:
			st.changed = append(st.changed, p)
		case err == nil:
			st.extra = append(st.extra, p)
		default:
			// A path that base lacks and that is gone again may have been
			// a hard link to a tracked file, written through and removed.
			// The watch saw only its name. Only a full status, which sees
			// the tracked file's new ctime, can tell.
			return st, statusAll
		}
	}
	return st, v
}

// lstatIn stats the slash path p under dir without following a final
// symlink. p comes from a watched directory of the slot, so no component
// above it is a symlink.
func lstatIn(dir, p string) (fs.FileInfo, error) {
	return os.Lstat(filepath.Join(dir, filepath.FromSlash(p)))
}
