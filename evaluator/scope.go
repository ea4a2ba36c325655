package evaluator

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/evaluator/gobench"
	"github.com/optimizer-dev/optimizer/evaluator/measure"
	"github.com/optimizer-dev/optimizer/evaluator/resultcache"
	"github.com/optimizer-dev/optimizer/evaluator/scope"
	"github.com/optimizer-dev/optimizer/proc"
	"github.com/optimizer-dev/optimizer/stats"
	"github.com/optimizer-dev/optimizer/store"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// scoped returns, of tops, those that execute a function c changes
// (package scope). tops are the benchmarks of the packages c affects, with
// base's binaries built in slot. Before any is measured, it says which, why
// and for about how long. When none executes one it returns none and a
// note that says so, naming the closest. Whatever it cannot find out
// scopes every one of tops.
func (j *job) scoped(ctx context.Context, c *cand, slot *worktreepool.Slot, tops []*measure.GoBench) ([]*measure.GoBench, string) {
	all := func(why string) []*measure.GoBench {
		j.sayScope(ctx, c, fmt.Sprintf("measures all %d benchmarks of the packages it affects: %s%s",
			len(tops), why, j.estimate(tops, nil)))
		return tops
	}
	d, err := candidate.Diff(ctx, j.opts.Repo, j.opts.Base, c.spec, func(p string) bool { return strings.HasSuffix(p, ".go") })
	if err != nil {
		return all(fmt.Sprintf("what it changes could not be read (%v)", err)), ""
	}
	ch := scope.Changed(d, c.restore == nil)
	if len(ch.Outside) > 0 {
		return all(scope.Pick(ch, nil).Why), ""
	}
	var benches []scope.Bench
	traces := map[*measure.GoBench]gobench.Trace{}
	for _, b := range tops {
		ts, err := j.traces(ctx, slot, b)
		if err != nil {
			if ctx.Err() != nil {
				return tops, ""
			}
			return all(fmt.Sprintf("what the benchmarks execute could not be found (%v)", err)), ""
		}
		t := gobench.Trace{Bench: b.Name, Failed: "not listed by its test binary"}
		for _, x := range ts {
			if x.Bench == b.Name {
				t = x
			}
		}
		traces[b] = t
		benches = append(benches, scope.Bench{Pkg: b.Pkg.ImportPath, Trace: t})
	}
	sc := scope.Pick(ch, benches)
	if len(sc.Run) == 0 {
		note := "not measured: " + sc.Why
		if len(sc.Closest) > 0 {
			var names []string
			for _, i := range sc.Closest {
				names = append(names, tops[i].Name)
			}
			note += fmt.Sprintf("; the closest benchmarks are %s (--bench-filter '^(%s)$' measures them)",
				strings.Join(names, ", "), strings.Join(names, "|"))
		}
		j.sayScope(ctx, c, note)
		return nil, note
	}
	var out, others []*measure.GoBench
	var names []string
	for i, b := range tops {
		if containsInt(sc.Run, i) {
			out = append(out, b)
			names = append(names, b.Name)
		} else {
			others = append(others, b)
		}
	}
	msg := fmt.Sprintf("measures %d of %d benchmarks (%s): %s%s", len(out), len(tops), strings.Join(names, ", "), sc.Why, j.estimate(out, traces))
	if len(others) > 0 {
		msg += "; --all measures every one"
	}
	j.sayScope(ctx, c, msg)
	return out, ""
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// sayScope tells the progress display, the event stream and the store
// which benchmarks c is measured on, once: the noise check scopes the
// first candidate before its turn.
func (j *job) sayScope(ctx context.Context, c *cand, msg string) {
	if c.scopeSaid {
		return
	}
	c.scopeSaid = true
	j.emit(Event{Kind: EventScope, Candidate: c.spec.Name, Index: c.idx, Message: msg})
	j.event(ctx, string(EventScope), c.spec.Name, msg)
}

// sayPlan says, as phase 2 starts and before any benchmark runs, how the
// benchmarks of its n candidates are chosen. With --bench, --all or
// --bench-filter they are the same for every candidate: it names them, why,
// and how long each candidate should take. By default they are each
// candidate's own (scoped): it says so, and each is said before that
// candidate's run. It is a scope event with no candidate.
func (j *job) sayPlan(ctx context.Context, n int) {
	each := "each candidate"
	if n > 1 {
		each = fmt.Sprintf("each of %d candidates", n)
	}
	var msg string
	switch {
	case j.bench != "":
		msg = fmt.Sprintf("measures the bench command (--bench) for %s%s", each, j.cost().Runs())
	case j.opts.BenchFilter == "" && !j.opts.All:
		msg = fmt.Sprintf("measures %s on the benchmarks that execute a function it changes, "+
			"found at base by coverage: which, why and for how long is said before its turn (--all measures every one)", each)
	default:
		names, err := gobench.TopNames(ctx, j.opts.Repo, j.opts.Base)
		if err != nil {
			return // phase 2 will say what is wrong
		}
		why := "--all"
		if j.opts.BenchFilter != "" {
			f, err := gobench.NewFilter(j.opts.BenchFilter)
			if err != nil {
				return // the same
			}
			why = fmt.Sprintf("--bench-filter %q selects them", f)
			names = slices.DeleteFunc(names, func(n string) bool { return !f.MatchTop(n) })
		}
		// The job does not hold the machine yet, so the estimate is at rest:
		// a probe of the pinned CPU could disturb another job's benchmark.
		msg = fmt.Sprintf("measures %d benchmarks declared at base (%s%s) for %s: %s%s each",
			len(names), strings.Join(names[:min(5, len(names))], ", "), more(len(names), 5), each, why,
			j.cost().Estimate(make([]gobench.Trace, len(names))))
	}
	j.emit(Event{Kind: EventScope, Message: msg})
	j.event(ctx, string(EventScope), "", msg)
}

// estimate is "; about 20s, up to 1m10s": the time benches should take to
// calibrate and measure (scope.Cost.Estimate). traces has what one
// iteration of each took with coverage, when known. Where other work
// shares the pinned CPU, samples take longer, and it says so. It probes
// that CPU, so the job must hold the machine.
func (j *job) estimate(benches []*measure.GoBench, traces map[*measure.GoBench]gobench.Trace) string {
	ts := make([]gobench.Trace, len(benches))
	for i, b := range benches {
		ts[i] = traces[b]
	}
	c := j.cost()
	cpu := j.cpu()
	share, ok := proc.CPUShare(cpu, shareProbe)
	if ok {
		c.Scale = gobench.CPUScale(share)
	}
	est := c.Estimate(ts)
	if c.Scale > 1 {
		est += fmt.Sprintf(" at the %.0f%% of CPU %d that other work leaves", 100*share, cpu)
	}
	return est
}

// shareProbe is how long estimate spins on the pinned CPU to find the
// share of it a benchmark would get now.
const shareProbe = 100 * time.Millisecond

// cost is what the time a candidate's benchmarks take depends on.
func (j *job) cost() scope.Cost {
	seq := stats.Sequential{MinPairs: j.opts.MinPairs, MaxPairs: j.opts.MaxPairs, Alpha: DefaultAlpha, MinSpeedup: j.opts.MinSpeedup}
	return scope.Cost{Target: calibrateTarget, Seq: seq, Budget: j.opts.Budget, FirstRuns: firstRuns}
}

// traces returns what each benchmark of b's package executes at base. It
// comes from the job's memory, the store (keyed by base and base's test
// binary), or a run with coverage (gobench.Cover) in slot.
func (j *job) traces(ctx context.Context, slot *worktreepool.Slot, b *measure.GoBench) ([]gobench.Trace, error) {
	pkg := b.Pkg.ImportPath
	if ts, ok := j.covered[pkg]; ok {
		return ts, nil
	}
	key := ""
	if bin := j.binHash(b.BaseBin); bin != "" {
		key = resultcache.Key(store.CacheCoverage, j.opts.Base, bin, pkg, strings.Join(b.Pkg.Benchmarks, "\x00"),
			strings.Join(j.opts.BuildFlags, "\x00"), strings.Join(j.opts.BenchArgs, "\x00"))
	}
	var ts []gobench.Trace
	if _, ok := j.cached(ctx, store.CacheCoverage, key, &ts); ok {
		j.covered[pkg] = ts
		return ts, nil
	}
	module, err := gobench.ModulePath(filepath.Join(slot.Dir(), "go.mod"))
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(j.tmp, "cover", fileName(pkg))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	bin := filepath.Join(dir, "cover.test")
	if err := gobench.BuildCover(ctx, slot.Dir(), pkg, bin, j.opts.BuildFlags); err != nil {
		return nil, fmt.Errorf("build %s's benchmarks with coverage: %w", pkg, err)
	}
	at := j.place(slot, bin)
	at.Sandbox = j.box(slot, []string{bin}, []string{dir})
	ts, err = gobench.Cover(ctx, bin, filepath.Join(slot.Dir(), b.Pkg.Dir), module, dir, b.Pkg.Benchmarks, at, j.opts.BenchArgs)
	if err != nil {
		return nil, err
	}
	j.covered[pkg] = ts
	if key != "" {
		j.putCache(ctx, store.CacheCoverage, key, "", ts)
	}
	return ts, nil
}
