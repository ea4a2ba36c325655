package measure

import (
	"context"
	"fmt"

	"github.com/optimizer-dev/optimizer/evaluator/gobench"
)

// First runs every benchmark once on side s for a single iteration, in a
// fresh process, as Sample does with the calibrated count. That gives the
// time of a lone first iteration. The hack check compares it with the time
// per op of the series (package hackcheck).
func (g *GoSampler) First(ctx context.Context, s Side) ([]Metric, error) {
	var out []Metric
	for _, b := range g.benches {
		bin, dir, at := b.BaseBin, b.BaseDir, b.BaseAt
		if s == Cand {
			bin, dir, at = b.CandBin, b.CandDir, b.CandAt
		}
		if err := freshCopy(bin, b.RunBin); err != nil {
			return nil, fmt.Errorf("%s: %w", b.Name, err)
		}
		ms, err := gobench.Sample(ctx, b.RunBin, dir, b.Name, 1, at, g.extra)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", b.Name, err)
		}
		for _, m := range ms {
			out = append(out, Metric{Bench: m.Bench, Unit: m.Unit, Value: m.Value, Iters: m.Iterations})
		}
	}
	return out, nil
}
