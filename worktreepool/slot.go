package worktreepool

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
)

// Errors a caller can recognise.
var (
	ErrClosed  = errors.New("slot pool is closed")
	ErrNoSlots = errors.New("no slot could be made")
	ErrBadPath = errors.New("path leaves the slot's tree")
)

// Slot is one linked worktree of the pool, detached at base. A Slot is lent
// to one holder at a time and must be released exactly once; only the holder
// may call its methods.
type Slot struct {
	name   string
	dir    string // the work tree, absolute
	gitDir string // its git directory: <common>/worktrees/<id>
	repo   string // the user's repository root, for worktree bookkeeping
	lock   *lockFile
	base   string // the commit the slot is at when restored
	log    *slog.Logger

	// watch sees what changes in the slot between resets, so that a reset
	// looks only there; nil when the slot is not watched (Options.NoWatch,
	// no inotify, or a watch that could not be made), and then every reset
	// reads a full status. Only the holder, or the pool restoring the slot,
	// touches it.
	watch    *watcher
	noWatch  bool
	paranoid bool          // every reset is a Verify
	resets   *resetCounts  // the pool's; nil for none
	tracked  *trackedCache // the pool's: the paths of base's tree

	machine *machineHold // the machine lock this holder has, if any

	// Guarded by the pool's mutex.
	held   bool
	weight int64
}

// Name is the slot's name, unique in its directory.
func (s *Slot) Name() string { return s.name }

// Dir is the root of the slot's work tree.
func (s *Slot) Dir() string { return s.dir }

// GitDir is the slot's own git directory, <common>/worktrees/<id>, as the
// pool made it: not what the slot's .git file says now, which a test may
// have rewritten.
func (s *Slot) GitDir() string { return s.gitDir }

// SlotEnv names the environment variable that tags the processes run in a
// slot with the slot's directory.
const SlotEnv = "OPTIMIZER_SLOT"

// Env is the environment that commands run in the slot should get on top of
// their own. GIT_CEILING_DIRECTORIES stops git from looking above the slot
// for a repository, so that a test that deleted the slot's .git file cannot
// reach the user's. OPTIMIZER_SLOT tags the command and everything it
// starts, so that what outlives it, even its owner's death, can be found and
// killed before the slot is used again.
func (s *Slot) Env() []string {
	return []string{"GIT_CEILING_DIRECTORIES=" + filepath.Dir(s.dir), SlotEnv + "=" + s.dir}
}

// git runs git on the slot, naming its git directory and work tree, so that
// a deleted or rewritten .git file cannot send it elsewhere. The slot's index
// is split (core.splitIndex): base's entries stay in a shared index written
// once, and each restore rewrites only the few entries it touched, instead
// of the whole index (1.8 MB for 20k files). That halves a restore on big
// trees.
func (s *Slot) git(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	var in io.Reader
	if stdin != nil {
		in = bytes.NewReader(stdin)
	}
	return runGit(ctx, in, append([]string{"-c", "core.splitIndex=true", "--git-dir=" + s.gitDir, "--work-tree=" + s.dir, "-C", s.dir}, args...)...)
}

// Apply applies a unified diff to the slot's work tree with git apply, which
// applies all of it or nothing, and refuses paths outside the tree or behind
// a symlink. The index is left at base.
func (s *Slot) Apply(ctx context.Context, patch []byte) error {
	if _, err := s.git(ctx, patch, "apply", "--whitespace=nowarn", "-"); err != nil {
		return err
	}
	return nil
}

// WriteFiles writes whole files into the slot and deletes others: see the
// package's WriteFiles.
func (s *Slot) WriteFiles(files map[string][]byte, deleted []string) error {
	return WriteFiles(s.dir, files, deleted)
}

// WriteFiles writes whole files into the tree at dir and deletes others,
// deletions first (so a file may replace a deleted directory), through
// os.Root, so that no path, symlink or "..", reaches outside the tree.
// Paths are slash-separated and relative to dir; a path into .git is
// refused. Slots take candidates this way, and optimizer apply writes a
// kept change into the user's tree the same way.
func WriteFiles(dir string, files map[string][]byte, deleted []string) error {
	for p := range files {
		if err := checkPath(p); err != nil {
			return err
		}
	}
	for _, p := range deleted {
		if err := checkPath(p); err != nil {
			return err
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("open %s: %w", dir, err)
	}
	defer root.Close()
	for _, p := range deleted {
		if err := root.RemoveAll(filepath.FromSlash(p)); err != nil {
			return fmt.Errorf("delete %s: %w", p, err)
		}
	}
	for p, data := range files {
		name := filepath.FromSlash(p)
		if dir := filepath.Dir(name); dir != "." {
			if err := root.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("write %s: %w", p, err)
			}
		}
		if err := root.WriteFile(name, data, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
	}
	return nil
}

// checkPath refuses a path that is absolute, unclean, the slot's root
// itself, climbs out with "..", or goes into .git.
func checkPath(p string) error {
	if p == "" || p == "." || path.IsAbs(p) || strings.HasPrefix(p, `\`) || path.Clean(p) != p || strings.ContainsRune(p, 0) {
		return fmt.Errorf("%w: %q", ErrBadPath, p)
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." || strings.EqualFold(part, ".git") {
			return fmt.Errorf("%w: %q", ErrBadPath, p)
		}
	}
	return nil
}

// Reset restores the slot to base: see the package doc. The holder may call
// it to measure base in the same slot; Release does it anyway.
func (s *Slot) Reset(ctx context.Context) error {
	if err := s.detach(ctx); err != nil {
		return err
	}
	if s.paranoid {
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
	s.rewatch()
	return nil
}

// quickReset restores the slot from what its watcher saw change: tracked
// files it saw are rewritten from the index and paths that base lacks are
// removed, with no git status at all; only when that is not enough (a
// tracked directory changed, say) does a git status of those paths alone
// say what to restore. It reports false, having changed nothing that a full reset would
// not redo, when it cannot vouch for the result: no watcher, lost events,
// a change in the slot's git directory (HEAD or the index may have moved),
// too many paths, or an error.
func (s *Slot) quickReset(ctx context.Context) bool {
	if s.watch == nil {
		return false
	}
	ch := s.watch.collect()
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
	after := s.watch.collect()
	if ch.moved || after.moved || after.lost {
		s.rewatch()
	}
	return true
}

// rewatch starts watching the slot afresh; the slot must be clean. A slot
// that cannot be watched is restored with full statuses.
func (s *Slot) rewatch() {
	s.unwatch()
	if s.noWatch {
		return
	}
	w, err := newWatcher(s.dir, s.gitDir)
	if err != nil {
		if !errors.Is(err, errNoWatch) && s.log != nil {
			s.log.Warn("watch slot: its resets will read a full git status", "slot", s.name, "err", err)
		}
		return
	}
	s.watch = w
}

// unwatch stops watching the slot.
func (s *Slot) unwatch() {
	if s.watch != nil {
		s.watch.close()
		s.watch = nil
	}
}

// slotStatus is what git status says of a slot.
type slotStatus struct {
	head    string   // HEAD's commit
	index   bool     // the index differs from HEAD, or has conflicts
	changed []string // tracked files changed or deleted in the work tree
	extra   []string // untracked and ignored paths (directories end in /)
}

func (st slotStatus) clean() bool { return !st.index && len(st.changed) == 0 && len(st.extra) == 0 }

// status reads the slot's state in one git status, of the whole tree or of
// the given paths (each a file or a subtree) only.
func (s *Slot) status(ctx context.Context, paths ...string) (slotStatus, error) {
	args := []string{"--literal-pathspecs", "status", "--porcelain=v2", "-z", "--branch",
		"--untracked-files=normal", "--ignored=matching", "--no-renames"}
	if len(paths) > 0 {
		args = append(append(args, "--"), paths...)
	}
	out, err := s.git(ctx, nil, args...)
	if err != nil {
		return slotStatus{}, fmt.Errorf("read slot %s: %w", s.name, err)
	}
	return parseStatus(out)
}

// parseStatus reads git status --porcelain=v2 -z --branch output.
func parseStatus(out []byte) (slotStatus, error) {
	var st slotStatus
	for rec := range bytes.SplitSeq(out, []byte{0}) {
		line := string(rec)
		switch {
		case line == "":
		case strings.HasPrefix(line, "# branch.oid "):
			st.head = strings.TrimPrefix(line, "# branch.oid ")
		case strings.HasPrefix(line, "# "):
		case strings.HasPrefix(line, "? "), strings.HasPrefix(line, "! "):
			st.extra = append(st.extra, line[2:])
		case strings.HasPrefix(line, "1 "):
			f := strings.SplitN(line, " ", 9)
			if len(f) != 9 || len(f[1]) != 2 {
				return st, fmt.Errorf("parse git status: %q", line)
			}
			if f[1][0] != '.' {
				st.index = true
			}
			if f[1][1] != '.' {
				st.changed = append(st.changed, f[8])
			}
		default: // "2 " (renames, off here) and "u " (conflicts): only an index in trouble has them
			st.index = true
		}
	}
	if st.head == "" {
		return st, errors.New("parse git status: no HEAD")
	}
	return st, nil
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
		s.unwatch()
		return fmt.Errorf("slot %s is not clean after a reset: %d changed, %d extra paths", s.name, len(st.changed), len(st.extra))
	}
	s.rewatch()
	return nil
}

// detach points the slot's HEAD straight at base again if it names a
// branch: a test that ran git checkout BRANCH in the slot attached it to one
// of the user's branches, and a reset with HEAD attached would move that
// branch. Only HEAD itself is written (update-ref --no-deref); the index
// and work tree are left for the reset. It is a file read when HEAD is
// detached, and is called before every reset and every lending of a slot.
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

// repair rewrites the slot's .git file, which a test may have deleted or
// changed. It fails when the slot's directory or git directory is gone.
func (s *Slot) repair() error {
	if fi, err := os.Stat(s.dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("slot %s: its directory is gone", s.name)
	}
	if _, err := os.Stat(filepath.Join(s.gitDir, "HEAD")); err != nil {
		return fmt.Errorf("slot %s: its git directory is gone", s.name)
	}
	want := "gitdir: " + s.gitDir + "\n"
	dotGit := filepath.Join(s.dir, ".git")
	if b, err := os.ReadFile(dotGit); err == nil && string(b) == want {
		return nil
	}
	if err := os.RemoveAll(dotGit); err != nil {
		return fmt.Errorf("repair slot %s: %w", s.name, err)
	}
	if err := os.WriteFile(dotGit, []byte(want), 0o644); err != nil {
		return fmt.Errorf("repair slot %s: %w", s.name, err)
	}
	return nil
}

// readGitFile returns the git directory a worktree's .git file points to.
func readGitFile(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, ".git"))
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	gd, ok := strings.CutPrefix(line, "gitdir: ")
	if !ok {
		return "", fmt.Errorf("%s/.git is not a gitdir file", dir)
	}
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(dir, gd)
	}
	return filepath.Clean(gd), nil
}
