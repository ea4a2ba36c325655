// Package measure is phase 2 of the evaluator: it measures one candidate
// against base in pairs until a sequential test settles the verdict.
//
// A Sampler takes one sample of every benchmark on one side; GoSampler runs
// Go test binaries, and Command runs a --bench command. Rounds is the
// measuring loop, Series holds its samples, Watch probes the machine around
// each sample, and Noise measures base against base. Nothing here knows of jobs, slots or the store. The evaluator builds
// the sampler and receives what was measured through hooks, so a verdict
// can be tested with a fake sampler in milliseconds.
package measure

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/optimizer-dev/optimizer/stats"
)

// Side names one half of a pair.
type Side int

const (
	Base Side = iota
	Cand
)

func (s Side) String() string {
	if s == Base {
		return "base"
	}
	return "candidate"
}

// Metric is one measured value of one benchmark in one sample.
type Metric struct {
	Bench string
	Unit  string
	Value float64
	Iters int64
	Dist  Disturbance // what competed with the sample (interference.go)
}

// ErrTooSlow reports a candidate sample that ran far past the base's time.
var ErrTooSlow = errors.New("candidate sample ran past its time limit")

// ErrNoSample reports a loop that ended without one complete pair.
var ErrNoSample = errors.New("no benchmark sample was taken")

// Sampler takes one sample of every benchmark on one side. The Go sampler
// runs one process per benchmark; a bench command runs once for all.
type Sampler interface {
	Sample(ctx context.Context, s Side) ([]Metric, error)
}

// A Rotator is a sampler whose samples can run in several settings (code
// layouts, environment sizes). Rounds calls Rotate with the round's number
// before each pair, so that both samples of a pair run in one setting.
type Rotator interface {
	Rotate(round int)
}

// Limits of a candidate's sample against base's.
const (
	SlowFactor = 10 // a candidate sample may take this many times base's
	SlowGrace  = 5 * time.Second
)

// Rounds is the measuring loop of one candidate: base and candidate
// interleaved, until the verdict is settled, the pairs reach the cap, or the
// time budget is spent. The side measured first in each pair is drawn by a
// coin seeded by Seed. Under A/A the labels are then a fair coin whatever
// the machine's noise does, so the signed-rank test is exact. In ABBA
// order, a burst of load across a round boundary moves two neighbouring
// pairs the same way; on a shared machine that tripled the A/A
// false-positive rate (docs/measuring.md).
type Rounds struct {
	Seq stats.Sequential
	// Judged says which unit the verdict rests on; nil is time
	// (NewSeries).
	Judged func(unit string) bool
	Seed   uint64
	// Kept are pairs measured earlier (by an earlier job), counted first.
	Kept [][2][]Metric
	// Start is when the candidate took the machine; Budget is its time.
	// The budget does not stop a candidate before FirstClaim pairs, the
	// first look that can claim anything.
	Start      time.Time
	Budget     time.Duration
	FirstClaim int
	// Deadline, when set, stops the loop once past (FirstRuns counted).
	Deadline time.Time
	// FirstRuns is how many times, once the loop is over, the caller runs
	// each side's benchmarks for one iteration in fresh processes (the hack
	// check). Their time, estimated from the latest pair (firstCost), is
	// counted in Budget and Deadline: the loop stops that much sooner.
	FirstRuns int
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Sampled, when set, receives every sample: its side, its round and its
	// place in the order of all samples.
	Sampled func(s Side, round, order int, ms []Metric)
	// Paired, when set, receives every new pair and the series so far.
	Paired func(p Pair, s *Series)
}

// Pair is one round of Rounds: a sample of each side.
type Pair struct {
	Round    int
	First    Side // the side measured first
	Metrics  [2][]Metric
	BaseTook time.Duration // base's sample time
	Took     time.Duration // the pair's time
	// After is what the caller's FirstRuns are expected to take once the
	// loop is over, from this pair (firstCost); 0 with no FirstRuns.
	After time.Duration
}

// firstCost is what one run of each side's benchmarks for one iteration
// should take, from a pair. It is each sample's time less the iterations
// past the first (sec/op times iterations). That leaves the processes'
// start-up and set-up and one iteration each.
func firstCost(took [2]time.Duration, ms [2][]Metric) time.Duration {
	var d time.Duration
	for s := range took {
		timed := 0.0
		for _, m := range ms[s] {
			if m.Unit == "sec/op" && m.Iters > 1 {
				timed += m.Value * float64(m.Iters-1)
			}
		}
		d += max(0, took[s]-time.Duration(timed*float64(time.Second)))
	}
	return d
}

// Outcome is what Rounds measured.
type Outcome struct {
	Series   *Series
	Decision stats.Decision
}

// pastDeadline reports whether the deadline, if there is one, is past, or
// will be after the time after.
func (l *Rounds) pastDeadline(after time.Duration) bool {
	return !l.Deadline.IsZero() && l.now().Add(after).After(l.Deadline)
}

func (l *Rounds) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

// Run measures with smp. A candidate sample that ran too long returns
// ErrTooSlow as the sampler said it, with the pairs so far. Another error
// of a sample names the side it was taken on.
func (l *Rounds) Run(ctx context.Context, smp Sampler) (Outcome, error) {
	seq := l.Seq
	var (
		series = NewSeries(l.Judged)
		dec    stats.Decision
		coin   = rand.New(rand.NewPCG(l.Seed, 0))
		r0     = len(l.Kept)
	)
	for _, rd := range l.Kept {
		series.Add(rd[Base], rd[Cand])
	}
	order := 2 * r0
	if r0 >= seq.MinPairs {
		dec = seq.Look(series.Names(), series.Pairs())
	}
	for r := r0; r < seq.MaxPairs && !dec.Settled; r++ {
		sides := [2]Side{Base, Cand}
		if coin.IntN(2) == 1 {
			sides = [2]Side{Cand, Base}
		}
		if rot, ok := smp.(Rotator); ok {
			rot.Rotate(r)
		}
		var got [2][]Metric
		pairStart := l.now()
		var took [2]time.Duration
		for _, s := range sides {
			t0 := l.now()
			ms, err := smp.Sample(ctx, s)
			took[s] = l.now().Sub(t0)
			if errors.Is(err, ErrTooSlow) {
				return Outcome{Series: series}, err
			}
			if err != nil {
				return Outcome{Series: series}, fmt.Errorf("benchmark %s: %w", s, err)
			}
			got[s] = ms
			if l.Sampled != nil {
				l.Sampled(s, r, order, ms)
			}
			order++
		}
		series.Add(got[Base], got[Cand])
		after := time.Duration(l.FirstRuns) * firstCost(took, got)
		if l.Paired != nil {
			l.Paired(Pair{Round: r, First: sides[0], Metrics: got, BaseTook: took[Base], Took: l.now().Sub(pairStart), After: after}, series)
		}
		if r+1 < seq.MinPairs {
			continue
		}
		dec = seq.Look(series.Names(), series.Pairs())
		if dec.Settled || l.now().Sub(l.Start)+after > l.Budget && r+1 >= l.FirstClaim || l.pastDeadline(after) {
			break
		}
	}
	if series.Rounds() == 0 {
		return Outcome{Series: series}, ErrNoSample
	}
	if !dec.Settled && series.Rounds() < seq.MinPairs {
		dec = seq.Look(series.Names(), series.Pairs())
	}
	return Outcome{Series: series, Decision: dec}, nil
}
