package stats

import (
	"errors"
	"fmt"
	"math"
)

// Errors that Compare and Sequential.Look report.
// They come wrapped with the position of the offending value.
var (
	ErrEmpty   = errors.New("no values")
	ErrInvalid = errors.New("value is not a positive finite number")
	ErrRagged  = errors.New("rounds differ in their number of benchmarks")
	ErrNames   = errors.New("names do not match the benchmarks in a round")
	ErrAlpha   = errors.New("alpha is not between 0 and 1")
)

// Pair is one base sample and the candidate sample taken next to it (either
// first), of the same benchmark and unit. Values are times or other costs:
// lower is better, and both must be positive and finite.
type Pair struct {
	Base, Cand float64
}

// LogRatio returns ln(Cand/Base): negative when the candidate is faster.
// It is computed as a difference of logs, so that no ratio of two valid
// values overflows or underflows.
func (p Pair) LogRatio() float64 { return math.Log(p.Cand) - math.Log(p.Base) }

func (p Pair) check() error {
	for _, v := range [2]float64{p.Base, p.Cand} {
		if !(v > 0) || math.IsInf(v, 0) { // also catches NaN
			return fmt.Errorf("%v: %w", v, ErrInvalid)
		}
	}
	return nil
}

// Estimate is a speedup (base/candidate, so above 1 is faster) with its
// confidence interval. An Estimate is a plain value, safe to copy.
type Estimate struct {
	// Name is the benchmark's name, or "" for an aggregate.
	Name string
	// Speedup is the Hodges–Lehmann estimate: exp of minus the median of the
	// Walsh averages of the log-ratios.
	Speedup float64
	// Low and High bound the speedup, from the Wilcoxon signed-rank
	// interval of the log-ratios.
	Low, High float64
	// Level is the confidence the interval actually has. The discreteness
	// of the exact test can make it higher than asked for. It is lower when
	// there are too few pairs to reach it at all (a bound is then the
	// extreme Walsh average). Look's intervals have unequal tails; see
	// Sequential.
	Level float64
	// P is the two-sided signed-rank p-value for "no change", unadjusted
	// for the number of looks or benchmarks.
	P float64
	// Pairs is the number of pairs (or rounds) behind the estimate.
	Pairs int
	// Verdict is set by Sequential.Look for each benchmark: faster,
	// slower or not-faster, judged on this interval alone.
	Verdict Outcome
}

// Compare estimates the speedup of one benchmark from its pairs, with an
// equal-tailed two-sided interval of level 1-alpha. The estimate is robust:
// a few outlying pairs move it little.
func Compare(pairs []Pair, alpha float64) (Estimate, error) {
	if err := checkAlpha(alpha); err != nil {
		return Estimate{}, err
	}
	d, err := logRatios(pairs)
	if err != nil {
		return Estimate{}, err
	}
	e, _, _ := estimate(d, alpha/2, alpha/2, nil)
	return e, nil
}

func checkAlpha(alpha float64) error {
	if !(alpha > 0 && alpha < 1) {
		return fmt.Errorf("%v: %w", alpha, ErrAlpha)
	}
	return nil
}

// logRatios returns the log-ratio of each pair.
func logRatios(pairs []Pair) ([]float64, error) {
	if len(pairs) == 0 {
		return nil, ErrEmpty
	}
	d := make([]float64, len(pairs))
	for i, p := range pairs {
		if err := p.check(); err != nil {
			return nil, fmt.Errorf("pair %d: %w", i+1, err)
		}
		d[i] = p.LogRatio()
	}
	return d, nil
}

// roundRatios checks rounds and returns the per-round mean log-ratio g[r]
// (winsorized when there are several benchmarks) and the per-benchmark
// log-ratios d[b][r].
func roundRatios(rounds [][]Pair) (g []float64, d [][]float64, err error) {
	if len(rounds) == 0 || len(rounds[0]) == 0 {
		return nil, nil, ErrEmpty
	}
	nb := len(rounds[0])
	g = make([]float64, len(rounds))
	d = make([][]float64, nb)
	for b := range d {
		d[b] = make([]float64, len(rounds))
	}
	for r, round := range rounds {
		if len(round) != nb {
			return nil, nil, fmt.Errorf("round %d has %d, round 1 has %d: %w", r+1, len(round), nb, ErrRagged)
		}
		sum := 0.0
		for b, p := range round {
			if err := p.check(); err != nil {
				return nil, nil, fmt.Errorf("round %d, benchmark %d: %w", r+1, b+1, err)
			}
			x := p.LogRatio()
			d[b][r] = x
			sum += x
		}
		g[r] = sum / float64(nb)
	}
	if nb > 1 {
		g = winsorizedMeans(d)
	}
	return g, d, nil
}

// estimate turns log-ratios into an Estimate whose lower bound has a
// one-sided error of at most below and whose upper bound at most above. It
// also returns the errors the bounds actually have, which exceed what was
// asked when there are too few values (see criticalCount). buf is scratch
// space, returned for reuse.
func estimate(d []float64, below, above float64, buf []float64) (Estimate, [2]float64, []float64) {
	// Speedup is base/cand = exp(-d): the speedup's lower bound is the
	// log-ratios' upper bound.
	centre, lo, hi, errLo, errHi, buf := hodgesLehmann(d, above, below, buf)
	return Estimate{
		Speedup: math.Exp(-centre),
		Low:     math.Exp(-hi),
		High:    math.Exp(-lo),
		Level:   1 - errLo - errHi,
		P:       signedRankP(d),
		Pairs:   len(d),
	}, [2]float64{errHi, errLo}, buf
}
