package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/store"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// overhead is section (a): the machinery's cost per candidate with a
// trivial test, against a fresh worktree, clone or copy per candidate.
func (h *harness) overhead(ctx context.Context) error {
	t := newTable("Overhead per candidate (test `true`)",
		"Optimizer: `evaluator.Run` at -j 1 on a warm pool (1 slot made, baseline cached in the store), "+
			"wall time of the job divided by its candidates; so it holds everything a candidate costs: its content id, "+
			"the store rows, acquire, stage, the test, restore and release. Half the candidates are patches, half whole files. "+
			"The parts below it are timed one by one on the same pool. The naive ways make a fresh tree per candidate, "+
			"stage the same change, run `sh -c true` in it, and delete it.",
		h.cols()...)
	h.tables = append(h.tables, t)
	for _, r := range h.repos {
		if err := h.overheadOn(ctx, r, t); err != nil {
			return err
		}
	}
	t.note("target (20k files): optimizer per candidate ≤ 0.10 × (`git worktree add` + `git worktree remove`)")
	return nil
}

func (h *harness) overheadOn(ctx context.Context, r *synthRepo, t *table) error {
	c := col(r)
	h.logf("overhead on %s", c)
	dir := filepath.Join(h.work, fmt.Sprintf("overhead-%d", r.files))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	pool, err := h.openPool(ctx, r, filepath.Join(dir, "slots"), 1, false)
	if err != nil {
		return err
	}
	defer closePool(pool)
	db, err := openStore(ctx, dir, "warm")
	if err != nil {
		return err
	}
	defer db.Close()
	if err := waitWarm(ctx, pool); err != nil {
		return err
	}
	if err := primeBaseline(ctx, r, pool, db, 1, "true", nil); err != nil {
		return err
	}
	n := h.overheadCands
	ours, err := h.repeat(h.reps, func(i int) (time.Duration, error) {
		d, err := job{repo: r, pool: pool, db: db, cands: r.candidates(n, fmt.Sprintf("o%d", i)), n: 1, test: "true"}.run(ctx)
		return d / time.Duration(n), err
	})
	if err != nil {
		return err
	}
	t.set("**optimizer, per candidate (warm pool, -j 1)**", c, "**"+secs(ours)+"**")

	var parts, fullParts []part
	err = h.exclusive(func() (err error) { parts, err = h.parts(ctx, r, pool, dir, "parts"); return err })
	if err != nil {
		return err
	}
	for _, p := range parts {
		t.set("  · "+p.name, c, secs(p.d))
	}

	// Before the watch: every reset reads a full git status.
	full, err := h.openPoolWith(ctx, r, filepath.Join(dir, "slots-nowatch"), 1, false, true)
	if err != nil {
		return err
	}
	defer closePool(full)
	if err := waitWarm(ctx, full); err != nil {
		return err
	}
	if err := primeBaseline(ctx, r, full, db, 1, "true", nil); err != nil {
		return err
	}
	oursFull, err := h.repeat(h.reps, func(i int) (time.Duration, error) {
		d, err := job{repo: r, pool: full, db: db, cands: r.candidates(n, fmt.Sprintf("f%d", i)), n: 1, test: "true"}.run(ctx)
		return d / time.Duration(n), err
	})
	if err != nil {
		return err
	}
	err = h.exclusive(func() (err error) { fullParts, err = h.parts(ctx, r, full, dir, "fullparts"); return err })
	if err != nil {
		return err
	}
	t.set("optimizer, per candidate, `NoWatch` (full `git status` per reset: before)", c, secs(oursFull))
	t.set("  · release, `NoWatch` (before)", c, secs(fullParts[4].d))

	cold, err := h.repeat(h.reps, func(i int) (time.Duration, error) {
		return h.coldJob(ctx, r, filepath.Join(dir, fmt.Sprintf("cold-%d", i)), n)
	})
	if err != nil {
		return err
	}
	t.set(fmt.Sprintf("optimizer, per candidate, cold job (open 1 slot, run %d, remove it)", n), c, secs(cold))

	nv, err := h.naiveAll(ctx, r, dir)
	if err != nil {
		return err
	}
	addRemove := nv.add + nv.remove
	t.set("naive: `git worktree add --detach`", c, secs(nv.add))
	t.set("naive: `git worktree remove --force`", c, secs(nv.remove))
	t.set("naive: worktree add + stage + test + remove", c, secs(nv.worktree))
	t.set("naive: `git clone --shared` + stage + test + `rm -rf`", c, secs(nv.clone))
	t.set("naive: `cp -a` of the repository + stage + test + `rm -rf`", c, secs(nv.copy))
	target := 0.0
	if r.files >= 20000 {
		target = 0.10
	}
	t.set("**ratio: optimizer / (worktree add + remove)**", c, "**"+ratio(ours, addRemove, target)+"**")
	t.set("ratio: optimizer / naive worktree per candidate", c, ratio(ours, nv.worktree, 0))
	t.set("ratio: optimizer / `clone --shared` per candidate", c, ratio(ours, nv.clone, 0))
	t.set("ratio: optimizer / `cp -a` per candidate", c, ratio(ours, nv.copy, 0))
	t.set("ratio: optimizer cold job / (worktree add + remove)", c, ratio(cold, addRemove, 0))
	h.addTime[r.files] = nv.add
	return nil
}

// coldJob opens a fresh pool of one slot and a fresh store, runs n
// candidates and closes the pool, removing its slot; it returns the time
// per candidate.
func (h *harness) coldJob(ctx context.Context, r *synthRepo, dir string, n int) (time.Duration, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	defer forceRemove(dir)
	start := time.Now()
	db, err := openStore(ctx, dir, "cold")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	pool, err := h.openPool(ctx, r, filepath.Join(dir, "slots"), 1, false)
	if err != nil {
		return 0, err
	}
	_, err = job{repo: r, pool: pool, db: db, cands: r.candidates(n, "cold"), n: 1, test: "true"}.run(ctx)
	if cerr := closePool(pool); err == nil {
		err = cerr
	}
	return time.Since(start) / time.Duration(n), err
}

type part struct {
	name string
	d    time.Duration
}

// parts times the steps of one candidate one by one on a warm pool.
func (h *harness) parts(ctx context.Context, r *synthRepo, pool *worktreepool.Pool, dir, name string) ([]part, error) {
	cands := r.candidates(h.overheadCands, name)
	var acq, stg, tst, rel, tid, sto []time.Duration
	db, err := openStore(ctx, dir, name)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if err := db.CreateJob(ctx, store.Job{ID: "parts", Kind: "machinery", Repo: r.dir, Base: r.base, Parallel: 1, State: "running"}); err != nil {
		return nil, err
	}
	rows := make([]store.Candidate, len(cands))
	for i, c := range cands {
		rows[i] = store.Candidate{JobID: "parts", Seq: i, Name: c.Name, Verdict: "pending"}
	}
	if err := db.AddCandidates(ctx, rows); err != nil {
		return nil, err
	}
	for i, c := range cands {
		d, err := timeIt(func() error { _, err := candidate.TreeID(ctx, r.dir, r.base, c); return err })
		if err != nil {
			return nil, err
		}
		tid = append(tid, d)
		var s *worktreepool.Slot
		d, err = timeIt(func() (err error) { s, err = pool.Acquire(ctx); return err })
		if err != nil {
			return nil, err
		}
		acq = append(acq, d)
		d, err = timeIt(func() error { return stageSlot(ctx, s, c) })
		if err != nil {
			pool.Release(s)
			return nil, err
		}
		stg = append(stg, d)
		d, err = timeIt(func() error { _, err := runIn(ctx, s.Dir(), nil, "sh", "-c", "true"); return err })
		if err != nil {
			pool.Release(s)
			return nil, err
		}
		tst = append(tst, d)
		d, _ = timeIt(func() error { pool.Release(s); return nil })
		rel = append(rel, d)
		row := rows[i]
		row.Verdict, row.Seconds, row.Result = "passed", 0.1, []byte(`{"verdict":"passed"}`)
		d, err = timeIt(func() error { return db.UpdateCandidate(ctx, row) })
		if err != nil {
			return nil, err
		}
		sto = append(sto, d)
	}
	return []part{
		{"content id (`candidate.TreeID`, in resolve)", median(tid)},
		{"acquire", median(acq)},
		{"stage (`git apply` or write files)", median(stg)},
		{"test `sh -c true`", median(tst)},
		{"release (restore the slot from its watch)", median(rel)},
		{"store: one candidate row", median(sto)},
	}, nil
}

// stageSlot stages c in s as the evaluator does.
func stageSlot(ctx context.Context, s *worktreepool.Slot, c candidate.Candidate) error {
	if len(c.Patch) > 0 {
		if err := s.Apply(ctx, c.Patch); err != nil {
			return err
		}
	}
	if len(c.Files) > 0 {
		return s.WriteFiles(c.Files, c.Deleted)
	}
	return nil
}
