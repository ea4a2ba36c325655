package optimize

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/evaluator/gobench"
)

// Defaults of the holdout.
const (
	// DefaultHoldout is the share of the benchmarks that execute the
	// targets held out from the generators, by default.
	DefaultHoldout = 0.25
	// DefaultHoldoutMin is the fewest benchmarks executing the targets for
	// the default holdout to hold any out.
	DefaultHoldoutMin = 4
)

// HoldoutChoice is which of the benchmarks that execute the targets the
// loop showed its generators, and which it held out from them. The choice
// is a function of the benchmarks, the fraction and the seed.
type HoldoutChoice struct {
	Fraction   float64  `json:"fraction"`
	Seed       uint64   `json:"seed"`
	Benchmarks []string `json:"benchmarks"` // those that execute a target, sorted
	Shown      []string `json:"shown"`
	HeldOut    []string `json:"held_out"`
	Note       string   `json:"note,omitempty"` // why none is held out
}

// ChooseHoldout splits names into those shown and those held out: a
// fraction of them, rounded, at least one and never all, picked by a
// permutation seeded with seed. Both lists are sorted.
func ChooseHoldout(names []string, fraction float64, seed uint64) (shown, held []string) {
	names = slices.Sorted(slices.Values(names))
	names = slices.Compact(names)
	n := len(names)
	k := min(max(int(math.Round(fraction*float64(n))), 1), n-1)
	if n < 2 || fraction <= 0 {
		return names, nil
	}
	perm := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)).Perm(n)
	out := map[int]bool{}
	for _, i := range perm[:k] {
		out[i] = true
	}
	for i, name := range names {
		if out[i] {
			held = append(held, name)
		} else {
			shown = append(shown, name)
		}
	}
	return shown, held
}

// seedOf is the holdout's seed when none is given: the base commit's
// first 16 hex digits, so that runs on one base hold out the same
// benchmarks.
func seedOf(base string) uint64 {
	s, _ := strconv.ParseUint(base[:min(16, len(base))], 16, 64)
	return s
}

// holdOut finds the benchmarks that execute the targets, and holds a share
// of them out of every generator's sight. Rounds measure only the shown
// ones, and the re-measure judges the best on both. When it cannot, the
// report says why and the loop shows everything.
func (r *run) holdOut(ctx context.Context) {
	if r.Holdout <= 0 || r.Spec.Bench == "none" {
		return
	}
	h := &HoldoutChoice{Fraction: r.Holdout, Seed: r.HoldoutSeed}
	if h.Seed == 0 {
		h.Seed = seedOf(r.Base)
	}
	r.report.Holdout = h
	if r.Spec.Bench != "" {
		h.Note = "the bench command is not Go benchmarks: none is held out"
		return
	}
	names, err := r.executing(ctx)
	if err != nil {
		h.Note = fmt.Sprintf("none is held out: find the benchmarks that execute the targets: %v", err)
		r.say(0, "%s", h.Note)
		return
	}
	h.Benchmarks = slices.Sorted(slices.Values(names))
	least := max(r.HoldoutMin, 2)
	if len(names) < least {
		h.Shown = h.Benchmarks
		h.Note = fmt.Sprintf("none is held out: %d benchmarks execute the targets, and holding out takes %d", len(names), least)
		r.say(0, "%s", h.Note)
		return
	}
	h.Shown, h.HeldOut = ChooseHoldout(names, r.Holdout, h.Seed)
	r.shownFilter = gobench.Restrict(r.Spec.BenchFilter, h.Shown)
	r.judgeFilter = gobench.Restrict(r.Spec.BenchFilter, h.Benchmarks)
	r.say(0, "holding out %d of the %d benchmarks that execute the targets (seed %d): generators see only the other %d",
		len(h.HeldOut), len(h.Benchmarks), h.Seed, len(h.Shown))
	r.reprofile(ctx)
}

// heldOut reports whether the run holds benchmarks out.
func (r *run) heldOut() bool { return r.report.Holdout != nil && len(r.report.Holdout.HeldOut) > 0 }

// executing is the top-level benchmarks that execute some target, found
// by coverage in a slot at base (executingIn), or by the test's stand-in.
func (r *run) executing(ctx context.Context) ([]string, error) {
	if r.benchmarksOf != nil {
		return r.benchmarksOf(ctx, r.Targets)
	}
	s, err := r.Pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("acquire a slot: %w", err)
	}
	defer r.Pool.Release(s)
	return executingIn(ctx, r.Repo, r.Base, s.Dir(), r.Spec.BenchFilter, r.Targets)
}

// executingIn runs every benchmark of base that filter selects for one
// iteration with coverage, in dir, a clean tree at base. It returns the
// names of those that execute a line of some target.
func executingIn(ctx context.Context, repo, base, dir, filter string, targets []Target) ([]string, error) {
	f, err := gobench.NewFilter(filter)
	if err != nil {
		return nil, fmt.Errorf("--bench-filter: %w", err)
	}
	pkgs, err := benchmarkDirs(ctx, repo, base)
	if err != nil {
		return nil, err
	}
	scratch, err := os.MkdirTemp("", "optimizer-holdout-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	var out []string
	for _, pkg := range pkgs {
		covs, err := CoverBenchmarks(ctx, dir, scratch, pkg, f.MatchTop)
		if err != nil {
			return nil, err
		}
		for _, c := range covs {
			if slices.ContainsFunc(targets, func(t Target) bool { return c.Executes(t.File, t.Line, t.EndLine) }) &&
				!slices.Contains(out, c.Name) {
				out = append(out, c.Name)
			}
		}
	}
	return out, nil
}

// reprofile profiles the targets again on the shown benchmarks alone, so
// that the profile a generator reads owes nothing to the held-out ones.
// A target without a profile keeps none.
func (r *run) reprofile(ctx context.Context) {
	if r.benchmarksOf != nil || !slices.ContainsFunc(r.Targets, func(t Target) bool { return t.Profile != nil }) {
		return
	}
	s, err := r.Pool.Acquire(ctx)
	if err != nil {
		r.say(0, "the targets go to generators without a profile: acquire a slot: %v", err)
		r.dropProfiles()
		return
	}
	defer r.Pool.Release(s)
	ts, err := ProfileTargets(ctx, r.Repo, r.Base, s.Dir(), r.shownFilter, r.Targets)
	if err != nil {
		r.say(0, "the targets go to generators without a profile: %v", err)
		r.dropProfiles()
		return
	}
	r.Targets = ts
}

// dropProfiles removes the targets' profiles, which the held-out
// benchmarks helped make.
func (r *run) dropProfiles() {
	ts := slices.Clone(r.Targets)
	for i := range ts {
		ts[i].Profile = nil
	}
	r.Targets = ts
}

// writeHoldout says which benchmarks were held out, or why none was.
func writeHoldout(b *strings.Builder, h *HoldoutChoice) {
	if len(h.HeldOut) == 0 {
		fmt.Fprintf(b, "holdout: %s\n", h.Note)
		return
	}
	fmt.Fprintf(b, "holdout: %d of the %d benchmarks that execute the targets were held out from the generators (fraction %g, seed %d): %s\n",
		len(h.HeldOut), len(h.Benchmarks), h.Fraction, h.Seed, strings.Join(h.HeldOut, ", "))
	fmt.Fprintf(b, "  shown: %s\n", strings.Join(h.Shown, ", "))
}

// rejection says why a re-measured best is no winner: its note (overfit),
// or what the hack check saw (suspect).
func rejection(res evaluator.CandidateResult) string {
	if len(res.Hacks) == 0 {
		return res.Note
	}
	var parts []string
	for _, h := range res.Hacks {
		parts = append(parts, fmt.Sprintf("%s: %s (%s)", h.Bench, h.Kind, h.Detail))
	}
	return strings.Join(parts, "; ")
}
