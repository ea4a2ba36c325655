package worktreepool

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/optimizer-dev/optimizer/internal/perm"
	"github.com/optimizer-dev/optimizer/proc"
	"golang.org/x/sync/semaphore"
)

// Defaults for Options.
const (
	// DefaultDir is where slots live, relative to the git common dir.
	DefaultDir = "optimizer/slots"
	// releaseTimeout bounds restoring (or replacing) one slot on release.
	releaseTimeout = 5 * time.Minute
)

// Options configure a Pool.
type Options struct {
	Repo string // the user's repository: its root, or any directory in it
	Base string // the commit slots are detached at
	Size int    // how many slots
	// Dir holds the slots; "" is <git-common-dir>/optimizer/slots. It must
	// be outside the user's working tree, or on git's ignore list.
	Dir string
	// Keep leaves the slots warm on Close, for the next pool to adopt,
	// instead of removing them.
	Keep bool
	// Makers bounds how many slots are made at once after the first one,
	// which is made alone; 0 means one per CPU.
	Makers int
	// NoWatch restores every slot from a full git status of its tree,
	// instead of from the changes an inotify watch saw (see the package
	// doc). It is slower on big trees. Use it where inotify cannot see every
	// change. That is on a network file system, or for tests that write
	// tracked files through a shared mmap after closing them, or through a
	// hard link from outside the slot.
	NoWatch bool
	// Paranoid proves every slot clean with Verify at every reset, not only
	// before a slot serves a benchmark or when a holder calls Verify. That
	// costs a walk of the tree and a full git status each time, but puts no
	// trust in the watch at all.
	Paranoid bool
	// MachineLock is the file that orders this pool's holders against other
	// pools', in this process or another: see holdMachine. "" means
	// DefaultMachineLock().
	MachineLock string
	Logger      *slog.Logger
}

// Stats is a snapshot of a pool's accounting.
type Stats struct {
	Size     int // slots asked for
	Open     int // slots that exist now
	Making   int // slots being made or adopted
	InUse    int // slots lent out
	Failed   int // slots that could not be made
	Adopted  int // slots taken over from an earlier pool
	Replaced int // slots made anew because they could not be restored
	// QuickResets counts the resets that looked only at what a slot's watch
	// saw change; FullResets those that read a full git status.
	QuickResets int
	FullResets  int
}

// Pool lends out the slots of one repository. Its methods are safe for
// concurrent use.
type Pool struct {
	repo     string
	common   string
	dir      string
	machine  string // the machine lock file
	size     int64
	keep     bool
	noWatch  bool
	paranoid bool
	resets   resetCounts
	waits    waits // holders blocked on the machine lock
	tracked  trackedCache
	makers   int
	log      *slog.Logger

	sem  *semaphore.Weighted
	idle chan *Slot // capacity size: every open slot fits
	stop context.CancelFunc
	wg   sync.WaitGroup // the maker goroutine

	mu      sync.Mutex
	base    string
	open    map[*Slot]bool
	making  int
	inUse   int
	stats   Stats
	lastErr error
	closed  bool
	changed chan struct{} // closed and replaced whenever the above change
}

// Open starts making opts.Size slots at opts.Base and returns at once. It
// adopts the orphaned and kept slots it finds in the slots directory first.
// It fails only for a bad repository or options; slots that cannot be made
// show in Stats, and Acquire fails only when none can.
func Open(ctx context.Context, opts Options) (*Pool, error) {
	if opts.Size < 1 {
		return nil, fmt.Errorf("open slot pool: size %d: need at least one slot", opts.Size)
	}
	if opts.Base == "" {
		return nil, errors.New("open slot pool: no base commit")
	}
	p, err := newPool(ctx, opts)
	if err != nil {
		return nil, err
	}
	adopted, stale := p.scan(ctx)
	mctx, stop := context.WithCancel(ctx)
	p.stop = stop
	p.making = int(p.size)
	p.wg.Go(func() { p.makeAll(mctx, adopted, stale) })
	return p, nil
}

func newPool(ctx context.Context, opts Options) (*Pool, error) {
	root, err := filepath.Abs(opts.Repo)
	if err != nil {
		return nil, err
	}
	common, err := commonDir(ctx, root)
	if err != nil {
		return nil, err
	}
	dir, err := slotsDir(common, opts.Dir)
	if err != nil {
		return nil, err
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	makers := opts.Makers
	if makers <= 0 {
		makers = runtime.NumCPU()
	}
	machine := opts.MachineLock
	if machine == "" {
		machine = DefaultMachineLock()
	}
	return &Pool{
		repo:     root,
		common:   common,
		dir:      dir,
		machine:  machine,
		size:     int64(opts.Size),
		keep:     opts.Keep,
		noWatch:  opts.NoWatch,
		paranoid: opts.Paranoid,
		tracked:  trackedCache{repo: root},
		makers:   makers,
		log:      logger.With("component", "pool"),
		sem:      semaphore.NewWeighted(int64(opts.Size)),
		idle:     make(chan *Slot, opts.Size),
		base:     opts.Base,
		open:     map[*Slot]bool{},
		stats:    Stats{Size: opts.Size},
		changed:  make(chan struct{}),
	}, nil
}

// slotsDir makes the slots directory and returns its absolute, symlink-free
// path: git records worktree paths that way.
func slotsDir(common, dir string) (string, error) {
	if dir == "" {
		dir = filepath.Join(common, filepath.FromSlash(DefaultDir))
		// The optimizer's directory holds the store and the artifacts:
		// private to the user, and tightened when it is not.
		if err := perm.PrivateDir(filepath.Dir(dir)); err != nil {
			return "", fmt.Errorf("make the optimizer's directory private: %w", err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("make slots directory: %w", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// Dir is the directory the pool's slots live in.
func (p *Pool) Dir() string { return p.dir }

// Size is how many slots the pool was opened with (Options.Size).
func (p *Pool) Size() int { return int(p.size) }

// notify wakes everyone waiting on a change. p.mu must be held.
func (p *Pool) notify() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// Acquire waits for a free slot and lends it out with weight 1. The slot is
// at the pool's base and clean. It must be given back with Release.
func (p *Pool) Acquire(ctx context.Context) (*Slot, error) {
	if err := p.sem.Acquire(ctx, 1); err != nil {
		return nil, err
	}
	machine, err := p.holdMachine(ctx, false)
	if err != nil {
		p.sem.Release(1)
		return nil, err
	}
	s, err := p.take(ctx)
	if err != nil {
		machine.Close()
		p.sem.Release(1)
		return nil, err
	}
	s.machine = machine
	if err := p.checkout(ctx, s); err != nil {
		p.Release(s)
		return nil, err
	}
	return s, nil
}

// AcquireExclusive waits until nothing else holds a slot and takes the
// pool's whole weight, so that whatever the caller runs has the machine to
// itself. It returns two slots, or one when the pool has only one. Each must
// be given back with Release.
func (p *Pool) AcquireExclusive(ctx context.Context) ([]*Slot, error) {
	if err := p.sem.Acquire(ctx, p.size); err != nil {
		return nil, err
	}
	machine, err := p.holdMachine(ctx, true)
	if err != nil {
		p.sem.Release(p.size)
		return nil, err
	}
	got, err := p.takeAll(ctx, 2)
	if err != nil {
		machine.Close()
		p.sem.Release(p.size)
		return nil, err
	}
	got[0].machine = machine
	for _, s := range got {
		if err = p.checkout(ctx, s); err != nil {
			break
		}
		// A benchmark's slots are proven clean: see Slot.Verify.
		var dirty int
		if dirty, err = s.Verify(ctx); err != nil {
			break
		}
		if dirty > 0 {
			p.log.Warn("a slot was not clean when lent for a benchmark: restored it (a test wrote through a hard link?)", "slot", s.name, "paths", dirty)
		}
	}
	if err != nil {
		for _, s := range got {
			p.Release(s) // their weights add up to the pool's
		}
		return nil, err
	}
	return got, nil
}

// take waits for an idle slot, marks it held with weight 1, and returns it.
func (p *Pool) take(ctx context.Context) (*Slot, error) {
	for {
		p.mu.Lock()
		ch, err := p.changed, p.unavailable()
		p.mu.Unlock()
		if err != nil {
			return nil, err
		}
		select {
		case s := <-p.idle:
			p.hold(s, 1)
			return s, nil
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// takeAll collects up to n idle slots for a caller that holds the whole
// weight: every open slot is then idle or about to be made. The first slot
// carries the weight the others do not. On error, it puts back what it took.
func (p *Pool) takeAll(ctx context.Context, n int) ([]*Slot, error) {
	got, err := p.collect(ctx, n)
	if err != nil {
		for _, s := range got {
			p.idle <- s
		}
		return nil, err
	}
	for i, s := range got {
		w := int64(1)
		if i == 0 {
			w = p.size - int64(len(got)-1)
		}
		p.hold(s, w)
	}
	return got, nil
}

func (p *Pool) collect(ctx context.Context, n int) ([]*Slot, error) {
	var got []*Slot
	for len(got) < n {
		p.mu.Lock()
		ch, open, making, err := p.changed, len(p.open), p.making, p.unavailable()
		p.mu.Unlock()
		if err != nil {
			return got, err
		}
		if making == 0 && len(got) >= open {
			break
		}
		select {
		case s := <-p.idle:
			got = append(got, s)
		case <-ch:
		case <-ctx.Done():
			return got, ctx.Err()
		}
	}
	return got, nil
}

// unavailable says why no slot will ever come, or nil. p.mu must be held.
func (p *Pool) unavailable() error {
	switch {
	case p.closed:
		return ErrClosed
	case len(p.open) == 0 && p.making == 0:
		if p.lastErr != nil {
			return fmt.Errorf("%w: %w", ErrNoSlots, p.lastErr)
		}
		return ErrNoSlots
	}
	return nil
}

func (p *Pool) hold(s *Slot, weight int64) {
	p.mu.Lock()
	s.held, s.weight = true, weight
	p.inUse++
	p.mu.Unlock()
}

// checkout moves a slot to the pool's base if the base moved since the
// slot was restored, and makes sure its HEAD is detached.
func (p *Pool) checkout(ctx context.Context, s *Slot) error {
	p.mu.Lock()
	base := p.base
	p.mu.Unlock()
	if s.base == base {
		return s.detach(ctx)
	}
	s.base = base
	return s.hardReset(ctx)
}

// SetBase moves the pool to another base commit. Each slot follows the next
// time it is lent out; slots lent out now keep the old base until then.
func (p *Pool) SetBase(base string) {
	p.mu.Lock()
	p.base = base
	p.mu.Unlock()
}

// SetKeep changes what Close does with the slots: keep them warm for the
// next pool to adopt, or remove them. A daemon keeps its pools warm, and
// removes the one it evicts. Call it before Close.
func (p *Pool) SetKeep(keep bool) {
	p.mu.Lock()
	p.keep = keep
	p.mu.Unlock()
}

// Release gives a slot back. It restores the slot to base first, repairing
// or replacing it if it cannot be restored, so the next holder gets a clean
// slot. A slot that cannot be replaced either is dropped from the pool.
// Releasing a slot that is not held does nothing but log.
func (p *Pool) Release(s *Slot) {
	p.mu.Lock()
	if !s.held {
		p.mu.Unlock()
		p.log.Error("release of a slot that is not held", "slot", s.name)
		return
	}
	w := s.weight
	p.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	start := time.Now()
	back := p.recover(ctx, s)
	cancel()
	if back == s {
		p.log.Debug("slot reset", "slot", s.name, "took", since(start))
	}

	if s.machine != nil {
		s.machine.Close()
		s.machine = nil
	}
	p.mu.Lock()
	s.held, s.weight = false, 0
	p.inUse--
	if back != s {
		delete(p.open, s)
		if back != nil {
			p.open[back] = true
			p.stats.Replaced++
		}
	}
	p.notify()
	p.mu.Unlock()
	if back != nil {
		p.idle <- back
	}
	p.sem.Release(w)
}

// recover restores s, or replaces it with a new slot, or returns nil.
func (p *Pool) recover(ctx context.Context, s *Slot) *Slot {
	if n := proc.KillTagged(SlotEnv, s.dir); n > 0 {
		p.log.Warn("killed processes left running in a slot", "slot", s.name, "count", n)
	}
	err := s.repair()
	if err == nil {
		if err = s.Reset(ctx); err == nil {
			return s
		}
		if err = s.hardReset(ctx); err == nil {
			return s
		}
	}
	p.log.Warn("replace slot", "slot", s.name, "err", err)
	if err := p.remove(ctx, s); err != nil {
		p.log.Warn("remove broken slot", "slot", s.name, "err", err)
	}
	n, err := p.makeSlot(ctx, s.base)
	if err != nil {
		p.log.Error("slot lost: it could not be restored or made anew", "slot", s.name, "err", err)
		return nil
	}
	return n
}

// Stats returns the pool's accounting now.
func (p *Pool) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := p.stats
	st.Open, st.Making, st.InUse = len(p.open), p.making, p.inUse
	st.QuickResets, st.FullResets = int(p.resets.quick.Load()), int(p.resets.full.Load())
	return st
}

// Close stops making slots, waits for lent slots to come back (until ctx is
// done), then removes every slot, or with Keep restores and keeps them for
// the next pool. One slot that cannot be removed does not stop the rest;
// the errors are joined.
func (p *Pool) Close(ctx context.Context) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.notify()
	p.mu.Unlock()
	p.stop()
	p.wg.Wait()

	var errs []error
	if err := p.waitReturned(ctx); err != nil {
		errs = append(errs, err)
	}
	p.mu.Lock()
	slots := make([]*Slot, 0, len(p.open))
	for s := range p.open {
		slots = append(slots, s)
	}
	p.open = map[*Slot]bool{}
	p.mu.Unlock()
	for len(p.idle) > 0 {
		<-p.idle
	}
	errs = append(errs, p.closeSlots(ctx, slots)...)
	return errors.Join(errs...)
}

// waitReturned waits until no slot is lent out, or ctx is done.
func (p *Pool) waitReturned(ctx context.Context) error {
	for {
		p.mu.Lock()
		n, ch := p.inUse, p.changed
		p.mu.Unlock()
		if n == 0 {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("close slot pool: %d slots still lent out: %w", n, ctx.Err())
		}
	}
}

// closeSlots removes or keeps slots, a few at a time.
func (p *Pool) closeSlots(ctx context.Context, slots []*Slot) []error {
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
		lim  = make(chan struct{}, p.makers)
	)
	for _, s := range slots {
		lim <- struct{}{}
		wg.Go(func() {
			defer func() { <-lim }()
			if err := p.closeSlot(ctx, s); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return errs
}

func (p *Pool) closeSlot(ctx context.Context, s *Slot) error {
	if p.keep && s.repair() == nil && s.Reset(ctx) == nil && s.lock.write(keptMark) == nil {
		s.stopInotify()
		s.lock.release()
		return nil
	}
	return p.remove(ctx, s)
}

// remove deletes a slot's worktree, then its lock file.
func (p *Pool) remove(ctx context.Context, s *Slot) error {
	s.stopInotify()
	if err := removeWorktree(ctx, p.repo, s.dir); err != nil {
		s.lock.release()
		return fmt.Errorf("remove slot %s: %w", s.name, err)
	}
	s.lock.remove()
	return nil
}

// newName returns a fresh slot name.
func newName() string {
	var b [4]byte
	rand.Read(b[:])
	return "slot-" + hex.EncodeToString(b[:])
}

// since is the time from start, rounded for a log line.
func since(start time.Time) time.Duration {
	return time.Since(start).Round(time.Millisecond)
}
