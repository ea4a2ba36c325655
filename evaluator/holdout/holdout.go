// Package holdout judges a candidate against the benchmarks held out from
// its generators (Options.Holdout): faster on the shown ones and not on
// the held-out ones is overfit.
package holdout

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/optimizer-dev/optimizer/result"
)

// Judge sets res.Holdout when res has timed rows on both sides of
// the holdout, and makes res overfit when its speedup does not carry over.
// It reports whether res changed. res is overfit when it is faster on the
// shown benchmarks but not on the held-out ones:
//   - shown: its verdict is faster, mixed or suspect, or a shown benchmark
//     is significantly faster, and their geometric mean clears the threshold;
//   - held out: none is significantly faster, or their geometric mean does
//     not clear the threshold, or one is significantly slower.
//
// A suspect one stays suspect when its speedup carries over. When it does
// not, overfit names the cause better: a special case for the shown
// benchmarks' inputs can cost no more than an empty call (hackcheck).
func Judge(res *result.CandidateResult, heldOut []string, minSpeedup float64) bool {
	switch res.Verdict {
	case result.VerdictFaster, result.VerdictNotFaster, result.VerdictMixed, result.VerdictSuspect:
	default:
		return false
	}
	var h result.HoldoutResult
	var logShown, logHeld float64
	var shownFaster, heldFaster, heldSlower bool
	for _, b := range res.Benchmarks {
		if b.Aside() || b.Speedup <= 0 {
			continue
		}
		top, _, _ := strings.Cut(b.Name, "/")
		if slices.Contains(heldOut, top) {
			h.HeldOut = append(h.HeldOut, b.Name)
			logHeld += math.Log(b.Speedup)
			heldSlower = heldSlower || res.BenchSlower(b, minSpeedup)
			heldFaster = heldFaster || res.BenchFaster(b, minSpeedup)
		} else {
			h.Shown = append(h.Shown, b.Name)
			logShown += math.Log(b.Speedup)
			shownFaster = shownFaster || res.BenchFaster(b, minSpeedup)
		}
	}
	if len(h.Shown) == 0 || len(h.HeldOut) == 0 {
		return false
	}
	h.ShownSpeedup = math.Exp(logShown / float64(len(h.Shown)))
	h.HeldOutSpeedup = math.Exp(logHeld / float64(len(h.HeldOut)))
	res.Holdout = &h
	claimed := res.Verdict != result.VerdictNotFaster || shownFaster
	if !claimed || h.ShownSpeedup < 1+minSpeedup || (heldFaster && h.HeldOutSpeedup >= 1+minSpeedup && !heldSlower) {
		return true
	}
	res.Verdict, res.Qualifier = result.VerdictOverfit, ""
	why := fmt.Sprintf("faster on the benchmarks its generators were shown (%.3g×), not on those held out from them (%.3g×)",
		h.ShownSpeedup, h.HeldOutSpeedup)
	if heldSlower {
		why += ", some of which are significantly slower"
	}
	res.AddNote(why)
	return true
}
