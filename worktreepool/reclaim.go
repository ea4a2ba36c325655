package worktreepool

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/optimizer-dev/optimizer/proc"
)

// Reclaim removes the slots in dir ("" is the default slots directory of
// the repository at repo) that no live process owns: the orphans of pools
// whose process died. Kept slots are removed too when all is set. Slots of
// live pools are never touched. It also removes git's records of slots whose
// directory is gone, so that git worktree list is clean. It returns how many
// slots it removed.
func Reclaim(ctx context.Context, repo, dir string, all bool) (int, error) {
	common, err := commonDir(ctx, repo)
	if err != nil {
		return 0, err
	}
	if dir == "" {
		dir = filepath.Join(common, filepath.FromSlash(DefaultDir))
	}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	dir, err = slotsDir(common, dir)
	if err != nil {
		return 0, err
	}
	// A slot that fails may fail because of another's half-made record,
	// which git cannot read whatever it is asked: it is tried again once
	// the others are done.
	n := 0
	var errs []error
	slots := candidates(dir)
	for try := 0; try < 2 && len(slots) > 0; try++ {
		var failed []string
		errs = errs[:0]
		for _, slot := range slots {
			err := reclaimSlot(ctx, repo, slot, all)
			switch {
			case errors.Is(err, errOwned):
			case err != nil:
				failed = append(failed, slot)
				errs = append(errs, err)
			default:
				n++
			}
		}
		slots = failed
	}
	if err := forgetMissing(ctx, repo, dir); err != nil {
		errs = append(errs, err)
	}
	return n, errors.Join(errs...)
}

// errOwned is reclaimSlot's answer for a slot that a live pool owns, or
// that is kept and not asked for.
var errOwned = errors.New("slot is owned")

// candidates lists the slot directories in dir: every NAME.lock's NAME, and
// every directory, with or without a lock file.
func candidates(dir string) []string {
	seen := map[string]bool{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			removeDeadTemp(filepath.Join(dir, e.Name()))
			continue // a lock file being made
		}
		name := strings.TrimSuffix(e.Name(), ".lock")
		if e.IsDir() || name != e.Name() {
			seen[filepath.Join(dir, name)] = true
		}
	}
	out := make([]string, 0, len(seen))
	for d := range seen {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// removeDeadTemp removes path, a lock file that newLock was making
// (NAME.lock.PID.tmp), when its maker PID is dead. The maker was killed
// before the rename, so no worktree was made for it.
func removeDeadTemp(path string) {
	rest := strings.TrimSuffix(path, ".tmp")
	pid, err := strconv.Atoi(rest[strings.LastIndexByte(rest, '.')+1:])
	if err != nil || pid <= 0 {
		return
	}
	if !proc.Exists(pid) {
		os.Remove(path)
	}
}

// reclaimSlot removes one slot directory if nobody owns it. With all false,
// a kept slot is left.
func reclaimSlot(ctx context.Context, repo, dir string, all bool) error {
	lock, err := takeLock(ctx, dir+".lock")
	if err != nil {
		return err
	}
	if lock == nil {
		if _, serr := os.Stat(dir + ".lock"); serr == nil {
			return errOwned // held by a live pool
		}
		// No lock file: a removal was cut short. Nobody can own it.
		return removeWorktree(ctx, repo, dir)
	}
	if !all && lock.kept() {
		lock.release()
		return errOwned
	}
	proc.KillTagged(SlotEnv, dir)
	if err := removeWorktree(ctx, repo, dir); err != nil {
		lock.release()
		return fmt.Errorf("remove slot %s: %w", filepath.Base(dir), err)
	}
	lock.remove()
	return nil
}

// removeWorktree removes the worktree at dir and git's record of it. git
// worktree remove refuses a worktree whose .git file is gone. Then the
// directory is deleted first and git is asked again: git removes the record
// of a worktree whose directory is missing, locked or not.
//
// A slot whose git worktree add was killed halfway has a record that git
// cannot read (an empty commondir, say). Then every git worktree command
// fails, in the user's repository too. That record is deleted by hand, as
// git worktree prune would, but only this slot's.
func removeWorktree(ctx context.Context, repo, dir string) error {
	_, err := inRepo(ctx, repo, "worktree", "remove", "--force", "--force", dir)
	if err == nil {
		return nil
	}
	if rerr := forceRemoveAll(dir); rerr != nil {
		return fmt.Errorf("%w; delete its directory: %w", err, rerr)
	}
	if rerr := removeBrokenRecord(ctx, repo, dir); rerr != nil {
		return fmt.Errorf("%w; delete its record: %w", err, rerr)
	}
	if _, err2 := inRepo(ctx, repo, "worktree", "remove", "--force", "--force", dir); err2 == nil {
		return nil
	}
	listed, lerr := listed(ctx, repo, dir)
	if lerr != nil {
		return lerr
	}
	if listed {
		return err
	}
	return nil
}

// removeBrokenRecord deletes git's record of the slot at dir,
// COMMON/worktrees/NAME, when it is half-made: its commondir or gitdir is
// missing or empty. A record whose gitdir names another worktree is not
// this slot's and is left.
func removeBrokenRecord(ctx context.Context, repo, dir string) error {
	common, err := commonDir(ctx, repo)
	if err != nil {
		return err
	}
	rec := filepath.Join(common, "worktrees", filepath.Base(dir))
	if _, err := os.Stat(rec); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	gitdir, gerr := os.ReadFile(filepath.Join(rec, "gitdir"))
	cdir, cerr := os.ReadFile(filepath.Join(rec, "commondir"))
	g := strings.TrimSpace(string(gitdir))
	if gerr == nil && g != "" && !samePath(filepath.Dir(g), dir) {
		return nil // another worktree's record
	}
	if gerr == nil && g != "" && cerr == nil && strings.TrimSpace(string(cdir)) != "" {
		return nil // sound: git can remove it itself
	}
	return os.RemoveAll(rec)
}

// samePath reports whether a and b name the same path once their parent
// directories' symbolic links are resolved; the paths themselves may be
// gone.
func samePath(a, b string) bool {
	real := func(p string) string {
		p = filepath.Clean(p)
		if d, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			return filepath.Join(d, filepath.Base(p))
		}
		return p
	}
	return real(a) == real(b)
}

// forceRemoveAll removes dir, making read-only directories in it writable
// if it has to.
func forceRemoveAll(dir string) error {
	if err := os.RemoveAll(dir); err == nil {
		return nil
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
	return os.RemoveAll(dir)
}

// worktrees lists the paths of the repository's linked worktrees.
func worktrees(ctx context.Context, repo string) ([]string, error) {
	out, err := inRepo(ctx, repo, "worktree", "list", "--porcelain")
	if err != nil {
		return nil, err
	}
	var paths []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if p, ok := strings.CutPrefix(sc.Text(), "worktree "); ok {
			paths = append(paths, filepath.Clean(p))
		}
	}
	return paths, nil
}

func listed(ctx context.Context, repo, dir string) (bool, error) {
	paths, err := worktrees(ctx, repo)
	if err != nil {
		return false, err
	}
	for _, p := range paths {
		if p == filepath.Clean(dir) {
			return true, nil
		}
	}
	return false, nil
}

// forgetMissing removes git's records of worktrees in dir whose directory
// and lock file are both gone.
func forgetMissing(ctx context.Context, repo, dir string) error {
	paths, err := worktrees(ctx, repo)
	if err != nil {
		return err
	}
	var errs []error
	for _, p := range paths {
		if filepath.Dir(p) != dir {
			continue
		}
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			continue
		}
		if _, err := os.Stat(p + ".lock"); !errors.Is(err, os.ErrNotExist) {
			continue
		}
		if _, err := inRepo(ctx, repo, "worktree", "remove", "--force", "--force", p); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
