package daemon

import (
	"context"
	"sync"
	"time"
)

// gate is the machine-wide slot budget that every job's slots come out of.
// It is the daemon's scheduler for slots, and decides who goes next. A job
// asks it for a slot (weight 1, for a behaviour run) or for the whole
// budget (exclusive, for a benchmark).
//
// The fairness rule, for shared slots: a free slot goes to the waiting job
// that holds the fewest slots now, ties going to the job submitted first.
// So a one-candidate job submitted behind a 200-candidate one gets the next
// slot that frees, instead of waiting for the 200 to pass.
//
// The benchmark rule: exclusive requests are granted one at a time, in
// submission order of their jobs, only when no slot at all is held (never
// beside a behaviour run). While one waits, no new shared slot is handed
// out, so a stream of behaviour runs cannot keep a benchmark waiting.
//
// A gate is safe for concurrent use.
type gate struct {
	mu        sync.Mutex
	size      int
	used      int      // slots held, the whole size while exclusive
	exclusive bool     // an exclusive holder has the budget
	exHolder  *gateJob // the job that holds it, while exclusive
	waiters   []*waiter
	waitHook  func(exclusive bool, d time.Duration) // observes how long each grant waited; may be nil
}

// gateJob is one job's account at the gate.
type gateJob struct {
	seq  int64 // submission order
	max  int   // most shared slots it may hold; <= 0 is no limit but the budget
	held int   // shared slots held
}

type waiter struct {
	job       *gateJob
	exclusive bool
	since     time.Time
	ready     chan struct{} // closed when granted
	granted   bool
}

func newGate(size int) *gate { return &gate{size: max(1, size)} }

// acquire waits for one slot, or for the whole budget when exclusive. It
// fails only with ctx's error, holding nothing then.
func (g *gate) acquire(ctx context.Context, j *gateJob, exclusive bool) error {
	return g.wait(ctx, g.request(j, exclusive))
}

// request queues a request, granting it at once if the rules allow.
func (g *gate) request(j *gateJob, exclusive bool) *waiter {
	w := &waiter{job: j, exclusive: exclusive, since: time.Now(), ready: make(chan struct{})}
	g.mu.Lock()
	g.waiters = append(g.waiters, w)
	g.grant()
	g.mu.Unlock()
	return w
}

// wait waits until w is granted or ctx ends; then w is withdrawn, or given
// back if it was granted meanwhile.
func (g *gate) wait(ctx context.Context, w *waiter) error {
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if w.granted { // granted as ctx ended: give it back
		g.releaseLocked(w.job, w.exclusive)
		return ctx.Err()
	}
	g.remove(w)
	g.grant()
	return ctx.Err()
}

// release gives back what one acquire of j took.
func (g *gate) release(j *gateJob, exclusive bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.releaseLocked(j, exclusive)
}

func (g *gate) releaseLocked(j *gateJob, exclusive bool) {
	if exclusive {
		g.used, g.exclusive, g.exHolder = 0, false, nil
	} else {
		g.used--
		j.held--
	}
	g.grant()
}

// grant hands out what can be handed out, by the rules in gate's comment.
func (g *gate) grant() {
	for {
		w := g.next()
		if w == nil {
			return
		}
		if w.exclusive {
			g.used, g.exclusive, g.exHolder = g.size, true, w.job
		} else {
			g.used++
			w.job.held++
		}
		w.granted = true
		g.remove(w)
		if g.waitHook != nil {
			g.waitHook(w.exclusive, time.Since(w.since))
		}
		close(w.ready)
	}
}

// next is the waiter to grant now, or nil.
func (g *gate) next() *waiter {
	if g.exclusive {
		return nil
	}
	var ex *waiter
	for _, w := range g.waiters {
		if w.exclusive && (ex == nil || w.job.seq < ex.job.seq) {
			ex = w
		}
	}
	if ex != nil {
		if g.used == 0 {
			return ex
		}
		return nil // a benchmark waits: no new behaviour run starts
	}
	if g.used >= g.size {
		return nil
	}
	var best *waiter
	for _, w := range g.waiters { // in arrival order: FIFO among equals
		if w.job.max > 0 && w.job.held >= w.job.max {
			continue
		}
		if best == nil || w.job.held < best.job.held || (w.job.held == best.job.held && w.job.seq < best.job.seq) {
			best = w
		}
	}
	return best
}

func (g *gate) remove(w *waiter) {
	for i, x := range g.waiters {
		if x == w {
			g.waiters = append(g.waiters[:i], g.waiters[i+1:]...)
			return
		}
	}
}

// waitsOnly reports whether j holds nothing of the budget and waits for
// some of it: a job queued for a slot, whatever its state says.
func (g *gate) waitsOnly(j *gateJob) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if j.held > 0 || g.exHolder == j {
		return false
	}
	for _, w := range g.waiters {
		if w.job == j {
			return true
		}
	}
	return false
}

// busy returns the slots held now and the number of waiting requests.
func (g *gate) busy() (used, waiting int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.used, len(g.waiters)
}
