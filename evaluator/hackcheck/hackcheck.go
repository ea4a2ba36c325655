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
// It sees nothing a single process's first iteration does not show: a
// result computed before the timed loop (in init, or in the benchmark's
// set-up), a cache kept on disk, or a special case for the benchmark's
// inputs (the optimisation loop's held-out benchmarks look for that).
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
	// CachedShare is how much of base's first iteration the candidate's
	// first must cost to count as cached, and FirstFactor how many times
	// its own time per op (cached).
	CachedShare = 0.5
	FirstFactor = 4
	// FloorFactor: an op costing no more than this many empty calls is
	// work the compiler removed.
	FloorFactor = 1.5
)

// Check returns the signs, per benchmark, that the candidate's speedup
// comes from not doing the work. floor is the cost of calling an empty
// function, in seconds (Floor); 0 skips the removed check.
func Check(benches []Bench, floor float64) []result.Hack {
	var out []result.Hack
	for _, b := range benches {
		if b.BaseOp <= 0 || b.CandOp <= 0 || b.BaseOp < MinSpeedup*b.CandOp {
			continue
		}
		if floor > 0 && b.CandOp <= FloorFactor*floor {
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

// cached reports a first iteration that does base's work while the rest
// cost almost nothing: the candidate's first iteration costs at least
// CachedShare of base's first, and FirstFactor times its own time per op.
// It judges only where base's first iteration is like its others (at most
// FirstFactor/2 times its time per op): where one-off costs (page faults,
// cold caches) swamp a first iteration, it cannot tell.
func cached(b Bench) (result.Hack, bool) {
	if len(b.BaseFirst) == 0 || len(b.CandFirst) == 0 {
		return result.Hack{}, false
	}
	bf, cf := median(b.BaseFirst), median(b.CandFirst)
	if bf > FirstFactor/2*b.BaseOp || cf < CachedShare*bf || cf < FirstFactor*b.CandOp {
		return result.Hack{}, false
	}
	return result.Hack{Bench: b.Name, Kind: result.HackCached,
		Detail: fmt.Sprintf("its first iteration takes %s and the rest %s each; base's first takes %s and the rest %s: a result kept across iterations",
			secs(cf), secs(b.CandOp), secs(bf), secs(b.BaseOp))}, true
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
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
