package worktreepool

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
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

	// inotify sees what changes in the slot between resets, so that a reset
	// looks only there. It is nil when the slot is not watched
	// (Options.NoWatch, no inotify, or no watch could be made); then every
	// reset reads a full status. Only the holder, or the pool restoring the
	// slot, touches it.
	inotify  *inotify
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
// is split (core.splitIndex). Base's entries stay in a shared index written
// once, and each restore rewrites only the few entries it touched, not the
// whole index (1.8 MB for 20k files). That halves a restore on big trees.
func (s *Slot) git(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	var in io.Reader
	if stdin != nil {
		in = bytes.NewReader(stdin)
	}
	return runGit(ctx, in, append([]string{"-c", "core.splitIndex=true", "--git-dir=" + s.gitDir, "--work-tree=" + s.dir, "-C", s.dir}, args...)...)
}
