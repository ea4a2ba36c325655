package evaluator

import (
	"context"
	"math"

	"github.com/optimizer-dev/optimizer/stats"
)

// noisePairs is how many A/A pairs the noise check takes.
const noisePairs = 10

// noiseCheck measures base against base before the first candidate, with the
// same benchmarks, binaries and pinning that the candidate will get. The half
// width of the A/A interval is the noise floor; a --min-speedup below it is
// warned about, because the threshold then sits inside the noise.
func (j *job) noiseCheck(ctx context.Context, c *cand) {
	slots, err := j.pool.AcquireExclusive(ctx)
	if err != nil {
		return
	}
	defer func() {
		for _, s := range slots {
			j.pool.Release(s)
		}
	}()
	smp, _, fail := j.newSampler(ctx, c, slots)
	if fail != nil || smp == nil {
		return
	}
	aa := &aaSampler{smp}
	s := newSeries()
	for range noisePairs {
		b, err := aa.sample(ctx, sideBase)
		if err != nil {
			return
		}
		c, err := aa.sample(ctx, sideCand)
		if err != nil {
			return
		}
		s.add(b, c)
	}
	if s.rounds() == 0 {
		return
	}
	seq := stats.Sequential{MinPairs: noisePairs, MaxPairs: noisePairs, Alpha: DefaultAlpha, MinSpeedup: j.opts.MinSpeedup}
	dec := seq.Look(s.names(), s.pairs())
	floor := math.Max(dec.Aggregate.High-1, 1-dec.Aggregate.Low)
	j.mu.Lock()
	j.noise = &Noise{Floor: floor, Pairs: s.rounds()}
	j.mu.Unlock()
	if j.opts.MinSpeedup < floor {
		j.warn(ctx, "--min-speedup %.1f%% is below the noise floor of %.1f%% measured base against base: raise it, or quiet the machine",
			100*j.opts.MinSpeedup, 100*floor)
	}
}

// aaSampler samples base on both sides.
type aaSampler struct{ s sampler }

func (a *aaSampler) sample(ctx context.Context, _ side) ([]metric, error) {
	return a.s.sample(ctx, sideBase)
}
