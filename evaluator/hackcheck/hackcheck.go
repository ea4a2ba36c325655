// Package hackcheck tells a speedup that comes from not doing the work
// from a real one, on Go benchmarks. It reads two things the evaluator
// measures: each side's time per op over the judged series, and the time
// of a lone first iteration in fresh processes of each side.
//
//   - cached: a result kept across iterations makes the first iteration
//     cost what base's first costs, and the rest almost nothing.
//   - removed: a body the compiler can remove costs no more per iteration
//     than calling an empty function does (Floor).
//
// It sees nothing a single process's first iteration does not show. That
// includes a result computed before the timed loop (in init, or in the
// benchmark's set-up), and a cache kept on disk. It also includes a special
// case for the benchmark's inputs, which the optimisation loop's held-out
// benchmarks look for.
package hackcheck

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/optimizer-dev/optimizer/result"
)

// Bench is what the check knows of one benchmark: times in seconds.
type Bench struct {
	Name           string
	BaseOp, CandOp float64 // time per op over the measured series, each side's centre
	// BaseFirst and CandFirst are the times of a lone first iteration,
	// one per fresh process; nil when they were not measured.
	BaseFirst, CandFirst []float64
}

// Thresholds of the check.
const (
	// MinSpeedup is the smallest speedup per op the check looks into: a
	// hack that skips the work shows far more than a small gain.
	MinSpeedup = 2
	// CachedShare is the share of the work saved per op that the
	// candidate's first iteration may save and still count as cached.
	// FirstFactor is how many times its own time per op it must cost.
	CachedShare = 0.5
	FirstFactor = 4
	// FloorFactor: an op costing no more than this many empty calls is
	// work the compiler removed.
	FloorFactor = 1.5
)

// Check returns the signs, per benchmark, that the candidate's speedup
// comes from not doing the work. The floor argument is the cost of calling
// an empty function, in seconds (Floor); 0 skips the removed check.
func Check(benches []Bench, floor float64) []result.Hack {
	var out []result.Hack
	for _, b := range benches {
		if !b.lookedInto() {
			continue
		}
		if b.removed(floor) {
			out = append(out, result.Hack{Bench: b.Name, Kind: result.HackRemoved,
				Detail: fmt.Sprintf("%s per op, no more than an empty function call (%s): the compiler can remove the body; base takes %s",
					secs(b.CandOp), secs(floor), secs(b.BaseOp))})
			continue
		}
		if h, ok := cached(b); ok {
			out = append(out, h)
		}
	}
	return out
}

// lookedInto reports whether b's speedup per op is large enough for the
// check to look into.
func (b Bench) lookedInto() bool {
	return b.BaseOp > 0 && b.CandOp > 0 && b.BaseOp >= MinSpeedup*b.CandOp
}

// removed reports whether the candidate's op costs no more than FloorFactor
// empty calls; floor 0 never does.
func (b Bench) removed(floor float64) bool {
	return floor > 0 && b.CandOp <= FloorFactor*floor
}

// cached reports a first iteration that does base's work while the rest
// cost almost nothing. A first iteration is the work plus one-off costs
// (page faults, cold caches), which both sides pay alike. So the
// candidate's first iteration, less CachedShare of the work it saves per
// op, still costs at least base's first. Each side's fastest first
// iteration stands for it; where base's two fastest disagree by more than
// half that margin, one-off costs are too noisy to tell.
func cached(b Bench) (result.Hack, bool) {
	if len(b.BaseFirst) < 2 || len(b.CandFirst) == 0 {
		return result.Hack{}, false
	}
	bf, cf := slices.Min(b.BaseFirst), slices.Min(b.CandFirst)
	margin, ok := cachedMargin(b)
	if !ok || cf < FirstFactor*b.CandOp || cf < bf-margin {
		return result.Hack{}, false
	}
	return result.Hack{Bench: b.Name, Kind: result.HackCached,
		Detail: fmt.Sprintf("its first iteration takes %s and the rest %s each; base's first takes %s and the rest %s: a result kept across iterations",
			secs(cf), secs(b.CandOp), secs(bf), secs(b.BaseOp))}, true
}

// cachedMargin is how much less than base's first iteration the
// candidate's may cost and still count as cached: CachedShare of the work
// it saves per op. It is not ok where base's two fastest first iterations
// disagree by more than half of it: one-off costs are then too noisy.
func cachedMargin(b Bench) (float64, bool) {
	if len(b.BaseFirst) < 2 {
		return 0, false
	}
	base := slices.Sorted(slices.Values(b.BaseFirst))
	// Under load the series' time per op can exceed a quiet first
	// iteration; base's first bounds the work it did.
	margin := CachedShare * (min(b.BaseOp, base[0]) - b.CandOp)
	return margin, margin > 0 && base[1]-base[0] <= margin/2
}

// Open names the benchmarks the cached check looks into but cannot judge:
// base's first iterations timed so far disagree too much. More runs of each
// side may settle them. A candidate's first iteration cheaper than
// FirstFactor times its time per op settles it alone. floor is as for Check.
func Open(benches []Bench, floor float64) []string {
	var open []string
	for _, b := range benches {
		if !b.lookedInto() || b.removed(floor) {
			continue
		}
		if len(b.CandFirst) > 0 && slices.Min(b.CandFirst) < FirstFactor*b.CandOp {
			continue
		}
		if m, ok := cachedMargin(b); !ok && m > 0 {
			open = append(open, b.Name)
		}
	}
	return open
}

func secs(s float64) string {
	return time.Duration(s * float64(time.Second)).String()
}

var floor struct {
	once sync.Once
	sec  float64
}

// Floor is the cost of calling an empty function on this machine, in
// seconds: the least of a few short timed loops, measured once per process.
func Floor() float64 {
	floor.once.Do(func() {
		const n = 1 << 20
		best := math.Inf(1)
		for range 5 {
			t0 := time.Now()
			for i := 0; i < n; i++ {
				empty(i)
			}
			best = min(best, time.Since(t0).Seconds()/n)
		}
		floor.sec = best
	})
	return floor.sec
}

//go:noinline
func empty(int) {}
