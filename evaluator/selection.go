package evaluator

import (
	"context"
	"slices"
)

// selectWinner marks the winner among the eligible candidates (see
// pickWinner) and returns it, or nil.
func (j *job) selectWinner() *cand {
	j.judgeHoldout()
	j.mu.Lock()
	w := pickWinner(j.cands)
	j.mu.Unlock()
	if w == nil {
		return nil
	}
	j.mu.Lock()
	w.res.Verdict = VerdictWinner
	j.mu.Unlock()
	j.saveCandidate(context.Background(), w)
	return w
}

// pickWinner applies the selection rule to cands and returns nil when none
// is eligible. Eligible are the candidates whose evidence says they are
// faster. That is over all their benchmarks (verdict faster), or on the
// benchmarks they sped up while slower on none. The latter have the
// qualifier faster-on-some: "faster on 2 of 13 benchmarks, none slower".
// Mixed ones never qualify. Then:
//  1. The best is the one with the largest aggregate speedup (the geometric
//     mean over all its benchmarks).
//  2. Every eligible candidate whose aggregate interval overlaps the best's
//     is tied with it: the evidence does not tell them apart.
//  3. Among the tied, a candidate faster over all its benchmarks comes
//     before one faster on a subset. Then comes the one significantly
//     faster on more benchmarks, then the smaller diff, then input order.
func pickWinner(cands []*cand) *cand {
	var eligible []*cand
	for _, c := range cands {
		if c.res.Verdict == VerdictFaster || c.res.Qualifier == QualifierFasterOnSome {
			eligible = append(eligible, c)
		}
	}
	if len(eligible) == 0 {
		return nil
	}
	best := slices.MaxFunc(eligible, func(a, b *cand) int {
		switch {
		case a.res.Speedup < b.res.Speedup:
			return -1
		case a.res.Speedup > b.res.Speedup:
			return 1
		}
		return b.idx - a.idx
	})
	var tied []*cand
	for _, c := range eligible {
		if c == best || (c.res.CI != nil && best.res.CI != nil && c.res.CI[1] >= best.res.CI[0]) {
			tied = append(tied, c)
		}
	}
	overall := func(c *cand) int {
		if c.res.Verdict == VerdictFaster {
			return 0
		}
		return 1
	}
	return slices.MinFunc(tied, func(a, b *cand) int {
		if d := overall(a) - overall(b); d != 0 {
			return d
		}
		if d := len(b.res.FasterOn) - len(a.res.FasterOn); d != 0 {
			return d
		}
		if d := diffSize(a) - diffSize(b); d != 0 {
			return d
		}
		return a.idx - b.idx
	})
}

// diffSize is the size of a candidate's change, in bytes.
func diffSize(c *cand) int {
	n := len(c.spec.Patch)
	for p, b := range c.spec.Files {
		n += len(p) + len(b)
	}
	return n + len(c.spec.Deleted)
}
