package worktreepool

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/optimizer-dev/optimizer/proc"
)

// gitLockReason is what git worktree list shows for a slot.
const gitLockReason = "optimizer slot: its NAME.lock beside it names the owner"

// makeAll fills the pool: the adopted slots first, then new ones. The first
// slot is made alone, so that it is ready as soon as one worktree can be
// made; the rest are made p.makers at a time. Then the stale slots found at
// Open are removed.
func (p *Pool) makeAll(ctx context.Context, adopted []*Slot, stale []string) {
	tasks := make([]func(context.Context) (*Slot, error), 0, p.size)
	for _, s := range adopted {
		tasks = append(tasks, func(ctx context.Context) (*Slot, error) { return p.adopt(ctx, s) })
	}
	for len(tasks) < int(p.size) {
		tasks = append(tasks, func(ctx context.Context) (*Slot, error) { return p.makeSlot(ctx, p.currentBase()) })
	}
	p.run(ctx, tasks[0])
	// The paths of base's tree, which quick resets need, are read now, while
	// the first slot is in use, rather than on its first reset.
	p.tracked.get(context.WithoutCancel(ctx), p.currentBase())
	var wg sync.WaitGroup
	lim := make(chan struct{}, p.makers)
	for _, t := range tasks[1:] {
		lim <- struct{}{}
		wg.Go(func() {
			defer func() { <-lim }()
			p.run(ctx, t)
		})
	}
	wg.Wait()
	for _, dir := range stale {
		if err := reclaimSlot(ctx, p.repo, dir, true); err != nil {
			p.log.Warn("remove stale slot", "dir", dir, "err", err)
		}
	}
}

// run runs one making task and adds its slot to the pool.
func (p *Pool) run(ctx context.Context, task func(context.Context) (*Slot, error)) {
	s, err := task(ctx)
	p.mu.Lock()
	p.making--
	switch {
	case err != nil:
		p.stats.Failed++
		p.lastErr = err
		p.log.Warn("make slot", "err", err)
	case p.closed:
		// Close has taken its list of slots already: this one is removed
		// below, outside the lock.
	default:
		p.open[s] = true
	}
	closed := p.closed
	p.notify()
	p.mu.Unlock()
	if err != nil {
		return
	}
	if closed {
		p.closeSlot(context.WithoutCancel(ctx), s)
		return
	}
	p.log.Debug("slot ready", "slot", s.name)
	p.idle <- s
}

func (p *Pool) currentBase() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.base
}

// makeSlot makes one new slot at base: its lock file first, then the
// worktree, locked in git too.
func (p *Pool) makeSlot(ctx context.Context, base string) (*Slot, error) {
	start := time.Now()
	name := newName()
	dir := filepath.Join(p.dir, name)
	// The slots directory itself may have been deleted since Open (by a
	// test, or a person): it is made again, so that a lost slot is
	// replaced rather than dropped.
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		return nil, fmt.Errorf("make slots directory: %w", err)
	}
	lock, err := newLock(dir + ".lock")
	if err != nil {
		return nil, err
	}
	// The new worktree's index is written split at once (see Slot.git); the
	// user's own index is not written by git worktree add.
	for try := 1; ; try++ {
		_, err = inRepo(ctx, p.repo, "-c", "core.splitIndex=true", "worktree", "add", "--quiet", "--detach", "--lock", "--reason", gitLockReason, dir, base)
		if err == nil || try == addTries || !racedAdd(err) || ctx.Err() != nil {
			break
		}
		p.log.Debug("git worktree add raced another git in the repository; again", "slot", name, "try", try, "err", err)
		if rerr := removeWorktree(context.WithoutCancel(ctx), p.repo, dir); rerr != nil {
			break
		}
	}
	var gitDir string
	if err == nil {
		gitDir, err = readGitFile(dir)
	}
	if err != nil {
		if rerr := removeWorktree(context.WithoutCancel(ctx), p.repo, dir); rerr != nil {
			p.log.Warn("remove half-made slot", "slot", name, "err", rerr)
		}
		lock.remove()
		return nil, fmt.Errorf("make slot %s: %w", name, err)
	}
	s := p.newSlot(name, dir, gitDir, lock)
	s.base = base
	s.startInotify() // a new worktree is clean
	p.log.Debug("slot made", "slot", name, "took", since(start))
	return s, nil
}

func (p *Pool) newSlot(name, dir, gitDir string, lock *lockFile) *Slot {
	return &Slot{name: name, dir: dir, gitDir: gitDir, repo: p.repo, lock: lock, log: p.log, noWatch: p.noWatch, paranoid: p.paranoid, resets: &p.resets, tracked: &p.tracked}
}

// scan takes the locks of the orphaned and kept slots in the slots
// directory. Up to Size of the sound ones are adopted; the rest are stale,
// to be removed once the pool is full. Slots whose owner lives are left
// alone.
func (p *Pool) scan(ctx context.Context) (adopted []*Slot, stale []string) {
	names, _ := filepath.Glob(filepath.Join(p.dir, "*.lock"))
	sort.Strings(names)
	for _, lockPath := range names {
		dir := strings.TrimSuffix(lockPath, ".lock")
		lock, err := takeLock(ctx, lockPath)
		if err != nil || lock == nil {
			continue
		}
		gitDir, err := readGitFile(dir)
		sound := err == nil && len(adopted) < int(p.size)
		if sound {
			_, err = os.Stat(filepath.Join(gitDir, "HEAD"))
			sound = err == nil
		}
		if !sound {
			lock.release()
			stale = append(stale, dir)
			continue
		}
		if err := lock.write(ownerMark()); err != nil {
			lock.release()
			stale = append(stale, dir)
			continue
		}
		adopted = append(adopted, p.newSlot(filepath.Base(dir), dir, gitDir, lock)) // watched once reset
	}
	return adopted, stale
}

// adopt takes over a slot an earlier pool left, kept or orphaned, and
// restores it to the pool's base. A slot that cannot be restored is removed
// and a new one made in its place.
func (p *Pool) adopt(ctx context.Context, s *Slot) (*Slot, error) {
	start := time.Now()
	proc.KillTagged(SlotEnv, s.dir)                  // what its dead owner's children left
	os.Remove(filepath.Join(s.gitDir, "index.lock")) // its owner is gone
	s.base = p.currentBase()
	err := s.repair()
	if err == nil {
		err = s.Reset(ctx)
	}
	if err == nil {
		p.mu.Lock()
		p.stats.Adopted++
		p.mu.Unlock()
		p.log.Debug("slot adopted", "slot", s.name, "took", since(start))
		return s, nil
	}
	p.log.Warn("adopt slot: make a new one instead", "slot", s.name, "err", err)
	if err := p.remove(ctx, s); err != nil {
		p.log.Warn("remove unsound slot", "slot", s.name, "err", err)
	}
	return p.makeSlot(ctx, s.base)
}

// addTries bounds the tries of one git worktree add that races another.
const addTries = 3

// racedAdd reports whether git worktree add failed because another git
// process was adding or removing a worktree of the same repository at the
// same moment. Two optimizers can do that, or a daemon beside a CLI. Git
// then reads a worktree record that is half made or half gone: "failed to
// read .git/worktrees/NAME/commondir". With three processes adding and
// removing at once, that happened in about one add of forty. The same add a
// moment later succeeds.
func racedAdd(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "failed to read") && strings.Contains(msg, "commondir")
}
