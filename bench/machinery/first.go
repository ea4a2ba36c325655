package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// firstTest is section (c): the time from the start of a job to its first
// test, with slots made lazily, against making all N slots first.
func (h *harness) firstTest(ctx context.Context) error {
	t := newTable(fmt.Sprintf("Time to the first test, cold, -j %d", h.firstJ),
		"From opening the store and the pool (nothing made yet, no baseline cached) to the moment the first test command "+
			"(the baseline's or a candidate's) starts, as the test itself records it. "+
			"*Lazy* is the pool as it is: the first slot is made alone and used at once while the others are made. "+
			"*All first* waits until all N slots are made before the job starts.",
		h.cols()...)
	h.tables = append(h.tables, t)
	for _, r := range h.repos {
		c := col(r)
		h.logf("time to first test on %s", c)
		dir := filepath.Join(h.work, fmt.Sprintf("first-%d", r.files))
		add, err := h.addOnce(ctx, r, dir)
		if err != nil {
			return err
		}
		t.set("one `git worktree add --detach`", c, secs(add))
		target := 0.0
		if r.files >= 20000 {
			target = 1.2
		}
		for _, cands := range []int{h.firstCands, h.memCands} {
			// This file system's cost of making files drifts by 10× from one
			// minute to the next. So each lazy job is also compared with an
			// add timed just before it, and the median of those ratios is
			// the figure judged.
			var ratios []float64
			lazy, err := h.repeat(h.reps, func(i int) (time.Duration, error) {
				next, err := h.addOnceAt(ctx, r, filepath.Join(dir, fmt.Sprintf("next-%d-%d", cands, i)))
				if err != nil {
					return 0, err
				}
				d, err := h.firstOnce(ctx, r, filepath.Join(dir, fmt.Sprintf("lazy-%d-%d", cands, i)), cands, false)
				ratios = append(ratios, float64(d)/float64(next))
				return d, err
			})
			if err != nil {
				return err
			}
			t.set(fmt.Sprintf("**lazy, %d candidates**", cands), c, "**"+secs(lazy)+" = "+ratio(lazy, add, 0)+" add; "+
				ratioOf(median(ratios), target)+" the add just before it**")
			if cands != h.firstCands {
				continue
			}
			all, err := h.repeat(h.reps, func(i int) (time.Duration, error) {
				return h.firstOnce(ctx, r, filepath.Join(dir, fmt.Sprintf("all-%d", i)), cands, true)
			})
			if err != nil {
				return err
			}
			t.set(fmt.Sprintf("all %d slots first, %d candidates", h.firstJ, cands), c, secs(all)+" = "+ratio(all, add, 0)+" add")
		}
	}
	t.note("target (20k files): lazy first test within 1.2 × one `git worktree add`")
	return nil
}

// addOnce is the median time of one git worktree add of r, alone.
func (h *harness) addOnce(ctx context.Context, r *synthRepo, dir string) (time.Duration, error) {
	return h.repeat(h.reps, func(i int) (time.Duration, error) {
		return h.addOnceAt(ctx, r, filepath.Join(dir, fmt.Sprintf("add-%d", i)))
	})
}

// addOnceAt times one git worktree add of r at tree, then removes it.
func (h *harness) addOnceAt(ctx context.Context, r *synthRepo, tree string) (time.Duration, error) {
	d, err := timeIt(func() error {
		_, err := gitIn(ctx, r.dir, "worktree", "add", "--quiet", "--detach", tree, r.base)
		return err
	})
	if err != nil {
		return 0, err
	}
	_, err = gitIn(ctx, r.dir, "worktree", "remove", "--force", tree)
	return d, err
}

// firstOnce runs one cold job of cands candidates in a new pool of h.firstJ
// slots and a new store in dir. It returns the time from the start to its
// first test. With allFirst, it waits for every slot before the job.
func (h *harness) firstOnce(ctx context.Context, r *synthRepo, dir string, cands int, allFirst bool) (time.Duration, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	defer forceRemove(dir)
	marks := filepath.Join(dir, "marks")
	test := markTest(marks)
	start := time.Now()
	db, err := openStore(ctx, dir, "first")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	pool, err := h.openPool(ctx, r, filepath.Join(dir, "slots"), h.firstJ, false)
	if err != nil {
		return 0, err
	}
	defer closePool(pool)
	if allFirst {
		if err := waitWarm(ctx, pool); err != nil {
			return 0, err
		}
	}
	if _, err := (job{repo: r, pool: pool, db: db, cands: r.candidates(cands, "first"), n: h.firstJ, test: test}).run(ctx); err != nil {
		return 0, err
	}
	first, err := firstMark(marks)
	if err != nil {
		return 0, err
	}
	return first.Sub(start), nil
}

// markTest is a test command that appends the time it starts to marks.
func markTest(marks string) string {
	return "date +%s%N >> " + strconv.Quote(marks)
}

// firstMark reads the earliest time in a marks file.
func firstMark(marks string) (time.Time, error) {
	b, err := os.ReadFile(marks)
	if err != nil {
		return time.Time{}, err
	}
	var first int64
	for _, l := range strings.Fields(string(b)) {
		n, err := strconv.ParseInt(l, 10, 64)
		if err != nil {
			return time.Time{}, fmt.Errorf("read %s: %w", marks, err)
		}
		if first == 0 || n < first {
			first = n
		}
	}
	if first == 0 {
		return time.Time{}, fmt.Errorf("no test ran: %s is empty", marks)
	}
	return time.Unix(0, first), nil
}
