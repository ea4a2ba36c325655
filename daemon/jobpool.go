package daemon

import (
	"context"
	"sync"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// slotSource is what a jobPool takes its slots from: a repository's warm
// pool. *worktreepool.Pool implements it.
type slotSource interface {
	Acquire(ctx context.Context) (*worktreepool.Slot, error)
	AcquireExclusive(ctx context.Context) ([]*worktreepool.Slot, error)
	Release(s *worktreepool.Slot)
}

var (
	_ slotSource     = (*worktreepool.Pool)(nil)
	_ evaluator.Pool = (*jobPool)(nil)
)

// jobPool is the evaluator.Pool of one job: each slot is first granted by
// the machine-wide gate, then taken from the repository's pool. Release
// gives both back. A jobPool is safe for concurrent use by the job's
// goroutines.
type jobPool struct {
	gate *gate
	job  *gateJob
	src  slotSource

	mu        sync.Mutex
	exclusive map[*worktreepool.Slot]bool // slots lent under an exclusive grant
	exLeft    int                         // of those, not yet released
}

func newJobPool(g *gate, j *gateJob, src slotSource) *jobPool {
	return &jobPool{gate: g, job: j, src: src, exclusive: map[*worktreepool.Slot]bool{}}
}

// Acquire waits for the gate's grant of one slot, then for a slot of the
// repository's pool.
func (p *jobPool) Acquire(ctx context.Context) (*worktreepool.Slot, error) {
	if err := p.gate.acquire(ctx, p.job, false); err != nil {
		return nil, err
	}
	s, err := p.src.Acquire(ctx)
	if err != nil {
		p.gate.release(p.job, false)
		return nil, err
	}
	return s, nil
}

// AcquireExclusive waits for the machine-wide benchmark gate (the whole
// budget, in submission order), then takes the repository pool's whole
// weight.
func (p *jobPool) AcquireExclusive(ctx context.Context) ([]*worktreepool.Slot, error) {
	if err := p.gate.acquire(ctx, p.job, true); err != nil {
		return nil, err
	}
	slots, err := p.src.AcquireExclusive(ctx)
	if err != nil {
		p.gate.release(p.job, true)
		return nil, err
	}
	p.mu.Lock()
	for _, s := range slots {
		p.exclusive[s] = true
	}
	p.exLeft = len(slots)
	p.mu.Unlock()
	return slots, nil
}

// Size is the most slots the job may hold at once: its limit at the gate.
func (p *jobPool) Size() int { return p.job.max }

// Release gives a slot back to the repository's pool, then its grant to
// the gate: an exclusive grant once all its slots are back.
func (p *jobPool) Release(s *worktreepool.Slot) {
	p.src.Release(s)
	p.mu.Lock()
	ex := p.exclusive[s]
	last := false
	if ex {
		delete(p.exclusive, s)
		p.exLeft--
		last = p.exLeft == 0
	}
	p.mu.Unlock()
	switch {
	case !ex:
		p.gate.release(p.job, false)
	case last:
		p.gate.release(p.job, true)
	}
}
