package measure

import (
	"context"
	"math"

	"github.com/optimizer-dev/optimizer/result"
	"github.com/optimizer-dev/optimizer/stats"
)

// NoisePairs is how many A/A pairs the noise check takes.
const NoisePairs = 10

// Noise measures base against base with smp, the sampler a candidate will
// get. The half width of the A/A interval is the noise floor; a
// --min-speedup below it sits inside the noise. Nil when a sample fails.
func Noise(ctx context.Context, smp Sampler, alpha, minSpeedup float64) *result.Noise {
	aa := &aaSampler{smp}
	s := NewSeries(nil)
	for range NoisePairs {
		b, err := aa.Sample(ctx, Base)
		if err != nil {
			return nil
		}
		c, err := aa.Sample(ctx, Cand)
		if err != nil {
			return nil
		}
		s.Add(b, c)
	}
	if s.Rounds() == 0 {
		return nil
	}
	seq := stats.Sequential{MinPairs: NoisePairs, MaxPairs: NoisePairs, Alpha: alpha, MinSpeedup: minSpeedup}
	dec := seq.Look(s.Names(), s.Pairs())
	floor := math.Max(dec.Aggregate.High-1, 1-dec.Aggregate.Low)
	return &result.Noise{Floor: floor, Pairs: s.Rounds()}
}

// aaSampler samples base on both sides.
type aaSampler struct{ s Sampler }

func (a *aaSampler) Sample(ctx context.Context, _ Side) ([]Metric, error) {
	return a.s.Sample(ctx, Base)
}
