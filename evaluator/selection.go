package evaluator

import (
	"context"
	"slices"
)

// selectWinner marks the winner: among the faster candidates (mixed ones do
// not qualify), the one with the largest speedup, unless another's interval
// overlaps it, in which case the two are not told apart by the evidence and
// the smaller diff wins. Input order breaks any remaining tie.
func (j *job) selectWinner() *cand {
	j.mu.Lock()
	var faster []*cand
	for _, c := range j.cands {
		if c.res.Verdict == VerdictFaster {
			faster = append(faster, c)
		}
	}
	j.mu.Unlock()
	w := pickWinner(faster)
	if w == nil {
		return nil
	}
	j.mu.Lock()
	w.res.Verdict = VerdictWinner
	j.mu.Unlock()
	j.saveCandidate(context.Background(), w)
	return w
}

// pickWinner applies selectWinner's rule to the faster candidates, and
// returns nil when there are none.
func pickWinner(faster []*cand) *cand {
	if len(faster) == 0 {
		return nil
	}
	best := slices.MaxFunc(faster, func(a, b *cand) int {
		switch {
		case a.res.Speedup < b.res.Speedup:
			return -1
		case a.res.Speedup > b.res.Speedup:
			return 1
		}
		return b.idx - a.idx
	})
	var tied []*cand
	for _, c := range faster {
		if c == best || (c.res.CI != nil && best.res.CI != nil && c.res.CI[1] >= best.res.CI[0]) {
			tied = append(tied, c)
		}
	}
	return slices.MinFunc(tied, func(a, b *cand) int {
		if d := diffSize(a) - diffSize(b); d != 0 {
			return d
		}
		return a.idx - b.idx
	})
}

// diffSize is the size of a candidate's change, in bytes.
func diffSize(c *cand) int {
	n := len(c.c.Patch)
	for p, b := range c.c.Files {
		n += len(p) + len(b)
	}
	return n + len(c.c.Deleted)
}
