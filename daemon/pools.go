package daemon

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/optimizer-dev/optimizer/proc"
	"github.com/optimizer-dev/optimizer/store"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// DefaultDiskBudget is how much disk the warm pools of idle repositories may
// take before the least recently used is removed: 20 GB.
const DefaultDiskBudget int64 = 20 << 30

// repoPools keeps one warm pool of slots, and the open store, per
// repository between jobs. Jobs on the same repository share its pool when
// they have the same base; a job at another base waits until the pool is
// idle, then moves it. Idle pools beyond the disk budget are removed, least
// recently used first. repoPools is safe for concurrent use.
type repoPools struct {
	size     int   // slots per pool: the machine-wide budget
	budget   int64 // bytes of idle pools' slots
	paranoid bool
	lock     string // the machine lock file; "" is the default
	log      *slog.Logger

	mu      sync.Mutex
	changed chan struct{} // closed and replaced when a pool is put back
	repos   map[string]*repoEntry
	closed  bool
}

// repoEntry is one repository's pool and store.
type repoEntry struct {
	root     string
	pool     *worktreepool.Pool
	db       *store.DB
	base     string
	users    int
	lastUsed time.Time
	bytes    int64 // disk its slots took when last measured
}

func newRepoPools(size int, budget int64, paranoid bool, lock string, log *slog.Logger) *repoPools {
	return &repoPools{size: size, budget: budget, paranoid: paranoid, lock: lock, log: log,
		changed: make(chan struct{}), repos: map[string]*repoEntry{}}
}

// get returns root's pool at base, opening it (adopting slots a previous
// daemon kept) if need be, and the repository's store. It waits while the
// pool serves jobs at another base. Give it back with put.
func (p *repoPools) get(ctx context.Context, root, commonDir, base string) (*repoEntry, error) {
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return nil, fmt.Errorf("open pool of %s: %w", root, worktreepool.ErrClosed)
		}
		e := p.repos[root]
		if e == nil {
			break
		}
		if e.users == 0 || e.base == base {
			if e.base != base {
				e.pool.SetBase(base)
				e.base = base
			}
			e.users++
			p.mu.Unlock()
			return e, nil
		}
		ch := p.changed
		p.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	defer p.mu.Unlock() // held from the loop: one repository is opened at a time
	db, err := store.Open(ctx, filepath.Join(commonDir, "optimizer", "optimizer.db"))
	if err != nil {
		return nil, fmt.Errorf("open store of %s: %w", root, err)
	}
	if _, err := db.MarkInterrupted(ctx, proc.Alive); err != nil {
		db.Close()
		return nil, fmt.Errorf("mark dead jobs of %s interrupted: %w", root, err)
	}
	// The pool outlives the job that opens it: its slots are made in the
	// background under a context no job's end cancels (Close stops them).
	pool, err := worktreepool.Open(context.WithoutCancel(ctx), worktreepool.Options{
		Repo: root, Base: base, Size: p.size, Keep: true, Paranoid: p.paranoid, MachineLock: p.lock, Logger: p.log,
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open slot pool of %s: %w", root, err)
	}
	e := &repoEntry{root: root, pool: pool, db: db, base: base, users: 1}
	p.repos[root] = e
	return e, nil
}

// put gives back what get returned, then evicts idle pools over the budget.
func (p *repoPools) put(ctx context.Context, e *repoEntry) {
	size := dirSize(e.pool.Dir())
	p.mu.Lock()
	e.users--
	e.lastUsed = time.Now()
	e.bytes = size
	close(p.changed)
	p.changed = make(chan struct{})
	evict := p.overBudget(e)
	p.mu.Unlock()
	for _, v := range evict {
		p.log.Info("evict warm pool", "repo", v.root, "bytes", v.bytes)
		v.pool.SetKeep(false)
		if err := v.pool.Close(ctx); err != nil {
			p.log.Warn("remove evicted pool", "repo", v.root, "err", err)
		}
		v.db.Close()
	}
}

// overBudget removes from the map, and returns, the least recently used
// idle pools while the pools take more than the budget. The pool just
// used (keep) stays: the next job is most likely on its repository.
func (p *repoPools) overBudget(keep *repoEntry) []*repoEntry {
	var total int64
	var idle []*repoEntry
	for _, e := range p.repos {
		total += e.bytes
		if e.users == 0 && e != keep {
			idle = append(idle, e)
		}
	}
	sort.Slice(idle, func(i, j int) bool { return idle[i].lastUsed.Before(idle[j].lastUsed) })
	var out []*repoEntry
	for _, e := range idle {
		if total <= p.budget {
			break
		}
		total -= e.bytes
		delete(p.repos, e.root)
		out = append(out, e)
	}
	return out
}

// stats returns, per repository, the slots lent out and the slots open.
func (p *repoPools) stats() map[string]worktreepool.Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]worktreepool.Stats, len(p.repos))
	for root, e := range p.repos {
		out[root] = e.pool.Stats()
	}
	return out
}

// close keeps every pool's slots warm for the next daemon, and closes the
// stores.
func (p *repoPools) close(ctx context.Context) error {
	p.mu.Lock()
	p.closed = true
	repos := p.repos
	p.repos = map[string]*repoEntry{}
	p.mu.Unlock()
	var first error
	for _, e := range repos {
		if err := e.pool.Close(ctx); err != nil && first == nil {
			first = fmt.Errorf("close pool of %s: %w", e.root, err)
		}
		e.db.Close()
	}
	return first
}

// dirSize is the bytes of the regular files under dir.
func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
