package evaluator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/gobench"
	"github.com/optimizer-dev/optimizer/store"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// Limits of Go benchmark samples.
const (
	slowFactor = 10 // a candidate sample may take this many times base's
	slowGrace  = 5 * time.Second
)

// calibrateTarget is one Go benchmark sample's run time, to which each
// benchmark's iteration count is calibrated on base: 300 ms, unless a CLI
// was linked with another sampleTime. Tests shorten it (shortSamples).
var calibrateTarget = sampleLength(sampleTime, 300*time.Millisecond)

// sampleTime, when set at link time, replaces the 300 ms of calibrateTarget.
// It is how bench/power compares sample lengths at the same time cost
// through the real CLI (its -samples flag builds one CLI per length, with
// -ldflags "-X github.com/optimizer-dev/optimizer/evaluator.sampleTime=150ms"):
// a measurement of the tool, not an option of it (docs/measuring.md, "Sample
// length").
var sampleTime string

// sampleLength parses a linked sampleTime; def when it is unset or not a
// positive duration.
func sampleLength(s string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return d
	}
	return def
}

// goBench is one Go benchmark prepared for measuring: both binaries built,
// the iteration count fixed on base.
type goBench struct {
	pkg      gobench.Package
	name     string
	baseBin  string
	candBin  string
	baseDir  string
	candDir  string
	baseAt   gobench.Place // how base's and the candidate's processes run
	candAt   gobench.Place
	runBin   string // the path both sides' samples run from (freshCopy)
	n        int64
	baseWall time.Duration // the longest base sample so far
	calSec   float64       // base's time per op when calibrated, in seconds (0: unknown)
}

// goSampler runs one process per benchmark per side.
type goSampler struct {
	j       *job
	c       *cand
	benches []*goBench
	extra   []string
	slow    float64 // the last base sample's largest time per op over its calibration's (interference.go)
}

// drop stops measuring b. A round's benchmarks are those both sides
// printed, so what was measured of b on one side only is never paired.
func (g *goSampler) drop(b *goBench) {
	g.benches = slices.DeleteFunc(slices.Clone(g.benches), func(x *goBench) bool { return x == b })
}

func (g *goSampler) sample(ctx context.Context, s side) ([]metric, error) {
	var out []metric
	if len(g.benches) == 0 {
		return nil, errors.New("no benchmark prints a result on both sides")
	}
	g.slow = 0
	for _, b := range slices.Clone(g.benches) {
		bin, dir, at := b.baseBin, b.baseDir, b.baseAt
		if s == sideCand {
			bin, dir, at = b.candBin, b.candDir, b.candAt
		}
		if err := freshCopy(bin, b.runBin); err != nil {
			return nil, fmt.Errorf("%s: %w", b.name, err)
		}
		sctx, cancel := ctx, context.CancelFunc(func() {})
		var limit time.Duration
		if s == sideCand && b.baseWall > 0 {
			limit = slowFactor*b.baseWall + slowGrace
			sctx, cancel = context.WithTimeout(ctx, limit)
		}
		t0 := time.Now()
		ms, err := gobench.Sample(sctx, b.runBin, dir, b.name, b.n, at, g.extra)
		wall := time.Since(t0)
		cancel()
		var nr *gobench.NoResultError
		if s == sideCand && errors.As(err, &nr) {
			// At base it has a result (calibration saw one): the benchmark
			// exists only on base's side of this candidate.
			g.j.warn(ctx, "%s prints no result in candidate %s, only at base, so it is not measured for %s; it said:\n%s",
				b.name, g.c.spec.Name, g.c.spec.Name, indent(nr.Said))
			g.drop(b)
			continue
		}
		if err != nil {
			if limit > 0 && ctx.Err() == nil && errors.Is(sctx.Err(), context.DeadlineExceeded) {
				return nil, fmt.Errorf("%w: %s took over %s where base takes %s", errTooSlow, b.name,
					limit.Round(time.Millisecond), b.baseWall.Round(time.Millisecond))
			}
			return nil, fmt.Errorf("%s: %w", b.name, err)
		}
		if s == sideBase && wall > b.baseWall {
			b.baseWall = wall
		}
		for _, m := range ms {
			out = append(out, metric{bench: m.Bench, unit: m.Unit, value: m.Value, iters: m.Iterations})
			if s == sideBase && m.Unit == "sec/op" && m.Bench == b.name && b.calSec > 0 {
				g.slow = max(g.slow, m.Value/b.calSec)
			}
		}
	}
	return out, nil
}

// newGoSampler finds the benchmarks of the packages c touches (or that import
// them), or every benchmark matching --bench-filter, builds base's test
// binaries and calibrates every benchmark on base once per job, then builds
// c's binaries. Problems of the job rather than of c (a filter that matches
// nothing, a benchmark without a result at base) are found here, at the
// first calibration, before any of c's own time is spent: a filter that
// matches nothing stops the job (j.stop), a benchmark without a result at
// base is left out with one warning for the whole job.
func (j *job) newGoSampler(ctx context.Context, c *cand, slots []*worktreepool.Slot, filter *gobench.Filter) (sampler, string, *Failure) {
	candSlot, baseSlot := slots[0], slots[0]
	if len(slots) > 1 {
		baseSlot = slots[1]
	}
	// --bench-filter names the benchmarks to run wherever they are, in place
	// of those of the packages the candidate touches.
	pkgs, err := gobench.Packages(ctx, baseSlot.Dir(), c.res.Files, j.opts.All || filter != nil)
	if err != nil {
		return nil, "", &Failure{Kind: FailError, Message: fmt.Sprintf("find benchmarks: %v", err)}
	}
	var tops []*goBench
	for _, p := range pkgs {
		for _, name := range p.Benchmarks {
			if filter == nil || filter.MatchTop(name) {
				tops = append(tops, &goBench{pkg: p, name: name})
			}
		}
	}
	if len(tops) == 0 && filter != nil {
		j.stop = fmt.Errorf("%w: --bench-filter %q matches no benchmark; the benchmarks are: %s", ErrBenchFilter, filter, listTops(pkgs))
		return nil, "", nil
	}
	if len(tops) == 0 {
		return nil, "no benchmark in the packages this candidate changes, or that import them (see --all, --bench, --bench-filter)", nil
	}
	// Base binaries first, while every slot is still at base.
	for _, b := range tops {
		bin, err := j.baseBinary(ctx, baseSlot, b.pkg)
		if err != nil {
			return nil, "", &Failure{Kind: FailError, Message: fmt.Sprintf("build base benchmarks: %v", err)}
		}
		b.baseBin, b.baseDir = bin, filepath.Join(baseSlot.Dir(), b.pkg.Dir)
		b.baseAt = j.place(baseSlot, bin)
	}
	benches, err := j.calibrated(ctx, tops, filter)
	if err != nil {
		if ctx.Err() == nil && !errors.Is(err, ErrBenchFilter) {
			return nil, "", &Failure{Kind: FailError, Message: err.Error()}
		}
		j.stop = err
		return nil, "", nil
	}
	if len(benches) == 0 {
		return nil, "no benchmark of the packages it changes prints a result at base (see the warnings)", nil
	}
	if err := j.stage(ctx, candSlot, c); err != nil {
		return nil, "", &Failure{Kind: FailApply, Message: err.Error()}
	}
	bins := map[string]string{}
	for _, b := range benches {
		bin, ok := bins[b.pkg.ImportPath]
		if !ok {
			bin = filepath.Join(j.tmp, "cand", fileName(c.spec.Name), fileName(b.pkg.ImportPath)+".test")
			if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
				return nil, "", &Failure{Kind: FailError, Message: err.Error()}
			}
			if err := gobench.Build(ctx, candSlot.Dir(), b.pkg.ImportPath, bin, j.opts.BuildFlags); err != nil {
				return nil, "", &Failure{Kind: FailBuild, Message: "build benchmarks: " + err.Error()}
			}
			bins[b.pkg.ImportPath] = bin
			j.candidateOnly(ctx, c, b.pkg, bin, filepath.Join(candSlot.Dir(), b.pkg.Dir), j.place(candSlot, bin), filter)
		}
		b.candBin, b.candDir = bin, filepath.Join(candSlot.Dir(), b.pkg.Dir)
		// Both sides' samples run from one path, a fresh copy each time
		// (freshCopy).
		b.runBin = filepath.Join(j.tmp, "run", fileName(b.pkg.ImportPath)+".test")
		b.baseAt, b.candAt = j.place(baseSlot, b.runBin), j.place(candSlot, b.runBin)
	}
	if err := os.MkdirAll(filepath.Join(j.tmp, "run"), 0o755); err != nil {
		return nil, "", &Failure{Kind: FailError, Message: err.Error()}
	}
	c.samplesKey = j.samplesKey(benches)
	j.mu.Lock()
	c.measured = &measured{goBench: benches}
	j.mu.Unlock()
	return &goSampler{j: j, c: c, benches: benches, extra: j.opts.BenchArgs}, "", nil
}

// candidateOnly warns about the benchmarks of pkg that only c's binary has:
// base has no side for them, so they are not measured.
func (j *job) candidateOnly(ctx context.Context, c *cand, pkg gobench.Package, bin, dir string, at gobench.Place, filter *gobench.Filter) {
	names, err := gobench.List(ctx, bin, dir, at)
	if err != nil {
		return // the samples will say what is wrong with the binary
	}
	for _, name := range names {
		if !slices.Contains(pkg.Benchmarks, name) && (filter == nil || filter.MatchTop(name)) {
			j.warn(ctx, "%s (%s) exists only in candidate %s, not at base, so it is not measured", name, pkg.ImportPath, c.spec.Name)
		}
	}
}

// listTops lists the top-level benchmarks of pkgs, for a message.
func listTops(pkgs []gobench.Package) string {
	var names []string
	for _, p := range pkgs {
		names = append(names, p.Benchmarks...)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// place is how a benchmark process of bin runs in slot: pinned as the job
// pins, capped, and sandboxed when the job is, able to read bin.
func (j *job) place(slot *worktreepool.Slot, bin string) gobench.Place {
	return gobench.Place{CPU: j.cpu(), MemLimit: j.opts.MemLimit, Sandbox: j.box(slot, []string{bin}, nil)}
}

// baseBinary builds base's test binary for pkg once per job.
func (j *job) baseBinary(ctx context.Context, slot *worktreepool.Slot, p gobench.Package) (string, error) {
	if bin, ok := j.baseBins[p.ImportPath]; ok {
		return bin, nil
	}
	bin := filepath.Join(j.tmp, "base", fileName(p.ImportPath)+".test")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return "", err
	}
	if err := gobench.Build(ctx, slot.Dir(), p.ImportPath, bin, j.opts.BuildFlags); err != nil {
		return "", err
	}
	j.baseBins[p.ImportPath] = bin
	return bin, nil
}

// calibrated expands the top-level benchmarks into the benchmarks to
// measure, each sub-benchmark on its own with its own iteration count,
// calibrated on base once per job with the --bench-arg arguments. A
// benchmark without a result at base is left out, with one warning for the
// job that shows what it said (its b.Skip message) and how to pass it
// arguments. With a filter whose sub-benchmark parts select nothing in any
// of tops, the error wraps ErrBenchFilter and lists what exists.
func (j *job) calibrated(ctx context.Context, tops []*goBench, filter *gobench.Filter) ([]*goBench, error) {
	var out []*goBench
	skipped := false
	for _, top := range tops {
		counts, err := j.calibration(ctx, top, filter)
		if err != nil {
			return nil, err
		}
		skipped = skipped || j.skipped[top.pkg.ImportPath+"."+top.name]
		for _, cnt := range counts {
			if filter != nil && !filter.Match(cnt.Bench) {
				continue
			}
			b := *top
			b.name, b.n, b.calSec = cnt.Bench, cnt.N, cnt.SecPerOp
			out = append(out, &b)
		}
	}
	if len(out) == 0 && filter != nil && !skipped {
		return nil, fmt.Errorf("%w: --bench-filter %q matches no benchmark; the benchmarks are: %s",
			ErrBenchFilter, filter, j.allNames(ctx, tops))
	}
	return out, nil
}

// calibration returns the counts of a top-level benchmark and of the
// sub-benchmarks filter can select, from base, once per job.
func (j *job) calibration(ctx context.Context, b *goBench, filter *gobench.Filter) ([]gobench.Count, error) {
	key := b.pkg.ImportPath + "." + b.name
	if c, ok := j.calib[key]; ok {
		return c, nil
	}
	ckey := j.calibKey(b, filter.Pattern(b.name))
	if counts, ok := j.cachedCalibration(ctx, ckey); ok {
		j.calib[key] = counts
		return counts, nil
	}
	counts, err := gobench.Calibrate(ctx, b.baseBin, b.baseDir, filter.Pattern(b.name), calibrateTarget, b.baseAt, j.opts.BenchArgs)
	if err == nil && ckey != "" && len(counts) > 0 {
		j.putCache(ctx, store.CacheCalibration, ckey, "", counts)
	}
	var nr *gobench.NoResultError
	switch {
	case errors.As(err, &nr) && filter != nil && filter.String() != "" && !filter.Match(b.name):
		// The filter's sub-benchmark parts select none of its subs.
		counts = nil
	case errors.As(err, &nr):
		j.warn(ctx, "%s (%s) prints no benchmark result at base, so it is not measured; "+
			"if it needs arguments (a data directory, a flag), pass them with --bench-arg, e.g. --bench-arg -datadir=DIR. It said:\n%s",
			b.name, b.pkg.ImportPath, indent(nr.Said))
		counts = nil
		j.skipped[key] = true
	case err != nil:
		return nil, fmt.Errorf("calibrate %s on base: %w", b.name, err)
	}
	j.calib[key] = counts
	return counts, nil
}

// allNames lists every benchmark of tops, sub-benchmarks included, from a
// run of one iteration each at base, for a message.
func (j *job) allNames(ctx context.Context, tops []*goBench) string {
	var names []string
	for _, b := range tops {
		ms, err := gobench.Sample(ctx, b.baseBin, b.baseDir, b.name, 1, b.baseAt, j.opts.BenchArgs)
		if err != nil {
			names = append(names, b.name)
			continue
		}
		for _, m := range ms {
			if len(names) == 0 || names[len(names)-1] != m.Bench {
				names = append(names, m.Bench)
			}
		}
	}
	return strings.Join(names, ", ")
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

// freshCopy writes bin's bytes to a new file at run, through a temporary
// file renamed into place, before every sample. Base's and the candidate's
// samples then run from the same path, in processes that differ in nothing
// but the binary's bytes and the tree they run in, and neither side keeps a
// file of its own: a byte-identical copy of a test binary, run as a file of
// its own, was measured up to 6% apart from the original, steadily over a
// trial, which a fixed file per side makes a bias that the random order of
// the pairs cannot touch; a new file per sample makes it noise that the
// order averages out (docs/measuring.md, "Identical binaries, different
// files"). Forks wait while the copy is open for writing (syscall.ForkLock),
// so that no child of this process holds it open when it is run (ETXTBSY).
func freshCopy(bin, run string) error {
	b, err := os.ReadFile(bin)
	if err != nil {
		return err
	}
	tmp := run + ".new"
	syscall.ForkLock.Lock()
	err = os.WriteFile(tmp, b, 0o755)
	syscall.ForkLock.Unlock()
	if err != nil {
		return err
	}
	return os.Rename(tmp, run)
}
