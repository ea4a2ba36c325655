package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/optimizer-dev/optimizer/store"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// warmRerun is section (d): a second job on the same repository, with the
// slots kept warm, against the first, cold job.
func (h *harness) warmRerun(ctx context.Context) error {
	t := newTable(fmt.Sprintf("Warm re-run, -j %d, %d candidates, test `true`", h.firstJ, h.scaleCands),
		"Job 1 is cold: a new pool with Keep set and a new store, timed from `worktreepool.Open` to the end of `evaluator.Run`; "+
			"its Close (restoring and keeping the slots) is timed apart. "+
			"Job 2 is the same size with new candidates on the same store: either a new pool that adopts the kept slots "+
			"(a second `optimizer --keep-slots` run), or job 1's pool itself (one process, as in watch mode). "+
			"First test: from the start to the first test command starting.",
		h.cols()...)
	h.tables = append(h.tables, t)
	for _, r := range h.repos {
		c := col(r)
		h.logf("warm re-run on %s", c)
		var cold, coldFirst, keep, adopt, adoptFirst, same, sameFirst, adopted []time.Duration
		for i := range h.reps {
			var m warmTimes
			err := h.exclusive(func() (err error) {
				m, err = h.warmOnce(ctx, r, filepath.Join(h.work, fmt.Sprintf("warm-%d-%d", r.files, i)))
				return err
			})
			if err != nil {
				return err
			}
			cold, coldFirst, keep = append(cold, m.cold), append(coldFirst, m.coldFirst), append(keep, m.keep)
			adopt, adoptFirst = append(adopt, m.adopt), append(adoptFirst, m.adoptFirst)
			same, sameFirst = append(same, m.same), append(sameFirst, m.sameFirst)
			adopted = append(adopted, time.Duration(m.adopted))
		}
		t.set("job 1, cold: open + run", c, secs(median(cold)))
		t.set("job 1, cold: first test", c, secs(median(coldFirst)))
		t.set("job 1: close, keeping the slots made so far", c, secs(median(keep)))
		t.set("job 2: slots adopted (the rest are made anew)", c, fmt.Sprintf("%d of %d", int(median(adopted)), h.firstJ))
		t.set("**job 2, new pool adopting the kept slots: open + run**", c, "**"+secs(median(adopt))+" = "+ratio(median(adopt), median(cold), 0)+" cold**")
		t.set("job 2, new pool adopting: first test", c, secs(median(adoptFirst))+" = "+ratio(median(adoptFirst), median(coldFirst), 0)+" cold")
		t.set("**job 2, same pool (one process): run**", c, "**"+secs(median(same))+" = "+ratio(median(same), median(cold), 0)+" cold**")
		t.set("job 2, same pool: first test", c, secs(median(sameFirst))+" = "+ratio(median(sameFirst), median(coldFirst), 0)+" cold")
	}
	return nil
}

type warmTimes struct {
	cold, coldFirst, keep, adopt, adoptFirst, same, sameFirst time.Duration
	adopted                                                   int // slots job 2's pool adopted
}

func (h *harness) warmOnce(ctx context.Context, r *synthRepo, dir string) (warmTimes, error) {
	var m warmTimes
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return m, err
	}
	defer forceRemove(dir)
	db, err := openStore(ctx, dir, "warm")
	if err != nil {
		return m, err
	}
	defer db.Close()
	slots := filepath.Join(dir, "slots")
	n := h.firstJ

	// Job 1: cold, kept.
	pool, err := h.openPool(ctx, r, slots, n, true)
	if err != nil {
		return m, err
	}
	start := time.Now()
	m.cold, m.coldFirst, err = h.markedJob(ctx, r, pool, db, dir, "cold", start)
	if err != nil {
		closePool(pool)
		return m, err
	}
	if m.keep, err = timeIt(func() error { return closePool(pool) }); err != nil {
		return m, err
	}

	// Job 2: a new pool adopts the kept slots.
	start = time.Now()
	pool, err = h.openPool(ctx, r, slots, n, false)
	if err != nil {
		return m, err
	}
	defer closePool(pool)
	if m.adopt, m.adoptFirst, err = h.markedJob(ctx, r, pool, db, dir, "adopt", start); err != nil {
		return m, err
	}
	m.adopted = pool.Stats().Adopted

	// Job 3: the same pool again.
	m.same, m.sameFirst, err = h.markedJob(ctx, r, pool, db, dir, "same", time.Now())
	return m, err
}

// markedJob runs a job whose test records when it starts, and returns the
// time from start to the job's end and to its first test.
func (h *harness) markedJob(ctx context.Context, r *synthRepo, pool *worktreepool.Pool, db *store.DB, dir, name string, start time.Time) (time.Duration, time.Duration, error) {
	// One marks file for every job, emptied before each, so that the test
	// command, and with it the store's baseline key, stays the same.
	marks := filepath.Join(dir, "marks")
	if err := os.Remove(marks); err != nil && !os.IsNotExist(err) {
		return 0, 0, err
	}
	_, err := job{repo: r, pool: pool, db: db, cands: r.candidates(h.scaleCands, "w"+name), n: h.firstJ, test: markTest(marks)}.run(ctx)
	if err != nil {
		return 0, 0, err
	}
	end := time.Since(start)
	first, err := firstMark(marks)
	if err != nil {
		return 0, 0, err
	}
	return end, first.Sub(start), nil
}
