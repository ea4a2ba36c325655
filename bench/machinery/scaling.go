package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/optimizer-dev/optimizer/store"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// scaling is section (b): phase 1's makespan at each -j, against the ideal.
func (h *harness) scaling(ctx context.Context) error {
	cores := runtime.NumCPU()
	spin, spinAlone, err := h.spinTest(ctx, h.cpu)
	if err != nil {
		return fmt.Errorf("calibrate the CPU-bound test: %w", err)
	}
	sleep := newTable(fmt.Sprintf("Phase 1 makespan, sleep-bound test (`sleep %g`), %d candidates", h.sleep.Seconds(), h.scaleCands),
		fmt.Sprintf("`evaluator.Run` of %d candidates whose test sleeps t = %s. Ideal: ⌈C/N⌉·t. "+
			"*Warm*: the pool open, its N slots made, the baseline's tests cached in the store, as in a second job or watch mode. "+
			"*Cold*: a new pool and a new store, timed from `worktreepool.Open` to the end of `evaluator.Run`: "+
			"it makes the slots, and runs the baseline's tests too (C+1 tests), so its ideal is ⌈(C+1)/N⌉·t + one `git worktree add` "+
			"(the median from the overhead section). *Phase 1 only*: from the behavior phase's start, when the first candidate's content id is known, "+
			"to the last verdict, leaving out recording the job (later content ids are resolved while the first candidates run).",
			h.scaleCands, h.sleep), h.cols()...)
	zero := newTable(fmt.Sprintf("Phase 1 makespan, zero-cost test (`true`), %d candidates", h.scaleCands),
		"Warm pool, as above. Only the machinery costs anything here, so more slots can only add contention: "+
			"the target is that no -j ≥ 2 is slower than -j 1.", h.cols()...)
	cpu := newTable(fmt.Sprintf("Phase 1 makespan, CPU-bound test, %d candidates", h.cpuCands),
		fmt.Sprintf("Warm pool. Each test burns a fixed amount of CPU work (about %s of CPU; %s of wall time alone, median of 3). "+
			"Bound: max(Σt/cores, max t) with %d cores.", h.cpu, secs(spinAlone), cores), h.cols()...)
	h.tables = append(h.tables, sleep, zero, cpu)
	for _, r := range h.repos {
		if err := h.scalingOn(ctx, r, sleep, zero, cpu, spin, spinAlone); err != nil {
			return err
		}
	}
	sleep.note("target (20k files): warm makespan at -j 8 ≤ 1.10 × ideal, and no -j ≥ 2 slower than -j 1")
	zero.note("target: every -j ≥ 2 at most 1.00× the makespan at -j 1")
	return nil
}

func (h *harness) scalingOn(ctx context.Context, r *synthRepo, sleep, zero, cpu *table, spin string, spinAlone time.Duration) error {
	c := col(r)
	dir := filepath.Join(h.work, fmt.Sprintf("scaling-%d", r.files))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	db, err := openStore(ctx, dir, "warm")
	if err != nil {
		return err
	}
	defer db.Close()
	sleepLine := fmt.Sprintf("sleep %g", h.sleep.Seconds())
	t := h.sleep
	cores := runtime.NumCPU()
	var zero1 time.Duration
	for _, n := range h.js {
		h.logf("scaling on %s at -j %d", c, n)
		// Slots are kept between -j values and adopted by the next, bigger
		// pool: ascending -j makes only the new ones.
		pool, err := h.openPool(ctx, r, filepath.Join(dir, "slots"), n, true)
		if err != nil {
			return err
		}
		err = h.scalingWarm(ctx, r, pool, db, n, sleepLine, spin, func(test string, d times) {
			switch test {
			case sleepLine:
				ideal := time.Duration(ceilDiv(h.scaleCands, n)) * t
				target := 0.0
				if n == 8 && r.files >= 20000 {
					target = 1.10
				}
				sleep.set(fmt.Sprintf("-j %d warm, whole job (ideal %s)", n, secs(ideal)), c, secs(d.wall)+" = "+ratio(d.wall, ideal, target))
				sleep.set(fmt.Sprintf("-j %d warm, phase 1 only", n), c, secs(d.phase1)+" = "+ratio(d.phase1, ideal, target))
			case "true":
				if n == h.js[0] {
					zero1 = d.wall
				}
				cell := secs(d.wall)
				if n != h.js[0] {
					cell += " = " + ratio(d.wall, zero1, 1.0) + " -j " + fmt.Sprint(h.js[0])
				}
				zero.set(fmt.Sprintf("-j %d warm, whole job", n), c, cell)
			default:
				bound := max(time.Duration(h.cpuCands)*spinAlone/time.Duration(min(n, cores)), spinAlone)
				cpu.set(fmt.Sprintf("-j %d warm, whole job (bound %s)", n, secs(bound)), c, secs(d.wall)+" = "+ratio(d.wall, bound, 0))
			}
		})
		if cerr := closePool(pool); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	if _, err := runIn(ctx, "", nil, "rm", "-rf", filepath.Join(dir, "slots")); err != nil {
		return err
	}
	gitIn(ctx, r.dir, "worktree", "prune")
	for _, n := range h.coldJs {
		h.logf("scaling on %s at -j %d, cold", c, n)
		d, err := h.repeat(h.reps, func(i int) (time.Duration, error) {
			return h.scalingCold(ctx, r, filepath.Join(dir, fmt.Sprintf("cold-%d-%d", n, i)), n, sleepLine)
		})
		if err != nil {
			return err
		}
		ideal := time.Duration(ceilDiv(h.scaleCands+1, n))*t + h.addTime[r.files]
		label := fmt.Sprintf("-j %d cold, whole job (ideal ⌈(C+1)/N⌉·t + one worktree add = %s)", n, secs(ideal))
		if h.addTime[r.files] == 0 {
			label = fmt.Sprintf("-j %d cold, whole job (ideal ⌈(C+1)/N⌉·t = %s, without the worktree add)", n, secs(ideal))
		}
		sleep.set(label, c, secs(d)+" = "+ratio(d, ideal, 0))
	}
	return nil
}

// scalingWarm waits for the pool's slots, caches the baselines, then runs
// each test's jobs h.reps times and reports each median.
func (h *harness) scalingWarm(ctx context.Context, r *synthRepo, p *worktreepool.Pool, s *store.DB, n int, sleepLine, spin string, report func(test string, d times)) error {
	if err := waitWarm(ctx, p); err != nil {
		return err
	}
	for _, tc := range []struct {
		test  string
		cands int
	}{{sleepLine, h.scaleCands}, {"true", h.scaleCands}, {spin, h.cpuCands}} {
		if err := primeBaseline(ctx, r, p, s, n, tc.test, nil); err != nil {
			return err
		}
		var wall, phase1 []time.Duration
		for i := range h.reps {
			var d times
			err := h.exclusive(func() (err error) {
				d, err = job{repo: r, pool: p, db: s, cands: r.candidates(tc.cands, fmt.Sprintf("s%d-%d", n, i)), n: n, test: tc.test, trace: h.trace}.timed(ctx)
				return err
			})
			if err != nil {
				return err
			}
			wall, phase1 = append(wall, d.wall), append(phase1, d.phase1)
		}
		report(tc.test, times{wall: median(wall), phase1: median(phase1)})
	}
	return nil
}

// scalingCold times a new pool of n slots and a new store, from Open to the
// end of the job, with the sleep-bound test.
func (h *harness) scalingCold(ctx context.Context, r *synthRepo, dir string, n int, test string) (time.Duration, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	defer forceRemove(dir)
	db, err := openStore(ctx, dir, "cold")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	start := time.Now()
	pool, err := h.openPool(ctx, r, filepath.Join(dir, "slots"), n, false)
	if err != nil {
		return 0, err
	}
	_, err = job{repo: r, pool: pool, db: db, cands: r.candidates(h.scaleCands, fmt.Sprintf("c%d", n)), n: n, test: test}.run(ctx)
	d := time.Since(start)
	if cerr := closePool(pool); err == nil {
		err = cerr
	}
	return d, err
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
