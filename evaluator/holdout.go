package evaluator

import (
	"context"

	"github.com/optimizer-dev/optimizer/evaluator/holdout"
)

// judgeHoldout gives each measured candidate of a job with held-out
// benchmarks (Options.Holdout) its speedup on the shown and on the held-out
// ones. It calls overfit the candidates faster on the shown and not on the
// held-out: they never win.
func (j *job) judgeHoldout() {
	if len(j.opts.Holdout) == 0 {
		return
	}
	for _, c := range j.cands {
		j.mu.Lock()
		changed := holdout.Judge(&c.res, j.opts.Holdout, j.opts.MinSpeedup)
		j.mu.Unlock()
		if changed {
			j.saveCandidate(context.Background(), c)
		}
	}
}
