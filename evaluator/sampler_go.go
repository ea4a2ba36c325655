package evaluator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/calibrate"
	"github.com/optimizer-dev/optimizer/evaluator/gobench"
	"github.com/optimizer-dev/optimizer/evaluator/measure"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// ErrBenchSkipped fails a job in which benchmarks ran and every one of
// them printed no result at base: nothing was measured, which is not a pass.
var ErrBenchSkipped = errors.New("every benchmark skipped")

// calibrateTarget is one Go benchmark sample's run time, to which each
// benchmark's iteration count is calibrated on base: 300 ms, unless a CLI
// was linked with another sampleTime. Tests shorten it (shortSamples).
var calibrateTarget = sampleLength(sampleTime, 300*time.Millisecond)

// sampleTime, when set at link time, replaces the 300 ms of calibrateTarget. It
// is how bench/power compares sample lengths at the same time cost through the
// real CLI. Its -samples flag builds one CLI per length, with -ldflags "-X
// github.com/optimizer-dev/optimizer/evaluator.sampleTime=150ms". It is a
// measurement of the tool, not an option of it (docs/measuring.md, "Sample
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

// newGoSampler finds the benchmarks of the packages c touches (or that import
// them), or every benchmark matching --bench-filter. It builds base's test
// binaries and calibrates every benchmark on base once per job, then builds
// c's binaries. Problems of the job rather than of c are found here, at the
// first calibration, before any of c's own time is spent. A filter that
// matches nothing stops the job (j.stop). A benchmark without a result at
// base is left out, with one warning for the whole job.
func (j *job) newGoSampler(ctx context.Context, c *cand, slots []*worktreepool.Slot, filter *gobench.Filter) (measure.Sampler, string, *Failure) {
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
	var tops []*measure.GoBench
	for _, p := range pkgs {
		for _, name := range p.Benchmarks {
			if filter == nil || filter.MatchTop(name) {
				tops = append(tops, &measure.GoBench{Pkg: p, Name: name})
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
		bin, err := j.baseBinary(ctx, baseSlot, b.Pkg)
		if err != nil {
			return nil, "", &Failure{Kind: FailError, Message: fmt.Sprintf("build base benchmarks: %v", err)}
		}
		b.BaseBin, b.BaseDir = bin, filepath.Join(baseSlot.Dir(), b.Pkg.Dir)
		b.BaseAt = j.place(baseSlot, bin)
	}
	// By default, only the benchmarks that execute what c changes.
	if filter == nil && !j.opts.All {
		var note string
		if tops, note = j.scoped(ctx, c, baseSlot, tops); len(tops) == 0 {
			return nil, note, nil
		}
	}
	benches, err := j.calib.Expand(ctx, tops, filter)
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
	// Base's second code layout, while the base slot is still at base.
	for _, b := range benches {
		b.BaseAlt = j.baseLayout(ctx, baseSlot, b.Pkg)
	}
	if err := j.stage(ctx, candSlot, c); err != nil {
		return nil, "", &Failure{Kind: FailApply, Message: err.Error()}
	}
	bins, alts := map[string]string{}, map[string]string{}
	for _, b := range benches {
		bin, ok := bins[b.Pkg.ImportPath]
		if !ok {
			bin = filepath.Join(j.tmp, "cand", fileName(c.spec.Name), fileName(b.Pkg.ImportPath)+".test")
			if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
				return nil, "", &Failure{Kind: FailError, Message: err.Error()}
			}
			if err := gobench.Build(ctx, candSlot.Dir(), b.Pkg.ImportPath, bin, j.opts.BuildFlags); err != nil {
				return nil, "", &Failure{Kind: FailBuild, Message: "build benchmarks: " + err.Error()}
			}
			bins[b.Pkg.ImportPath] = bin
			j.candidateOnly(ctx, c, b.Pkg, bin, filepath.Join(candSlot.Dir(), b.Pkg.Dir), j.place(candSlot, bin), filter)
			if b.BaseAlt != "" {
				alts[b.Pkg.ImportPath] = j.layout(ctx, candSlot, b.Pkg, strings.TrimSuffix(bin, ".test")+".layout.test")
			}
		}
		b.CandBin, b.CandDir = bin, filepath.Join(candSlot.Dir(), b.Pkg.Dir)
		b.CandAlt = alts[b.Pkg.ImportPath]
		// Both sides' samples run from one path, a fresh copy each time
		// (measure/sampler_go.go, freshCopy).
		b.RunBin = filepath.Join(j.tmp, "run", fileName(b.Pkg.ImportPath)+".test")
		b.BaseAt, b.CandAt = j.place(baseSlot, b.RunBin), j.place(candSlot, b.RunBin)
	}
	if err := os.MkdirAll(filepath.Join(j.tmp, "run"), 0o755); err != nil {
		return nil, "", &Failure{Kind: FailError, Message: err.Error()}
	}
	c.samplesKey = j.samplesKey(benches)
	j.mu.Lock()
	c.measured = &measured{goBench: benches}
	j.mu.Unlock()
	onlyBase := func(ctx context.Context, name, said string) {
		j.warn(ctx, "%s prints no result in candidate %s, only at base, so it is not measured for %s; it said:\n%s",
			name, c.spec.Name, c.spec.Name, calibrate.Indent(said))
	}
	return measure.NewGoSampler(benches, j.opts.BenchArgs, onlyBase), "", nil
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

// baseLayout builds base's test binary for pkg in the second code layout
// once per job; "" when it cannot be built.
func (j *job) baseLayout(ctx context.Context, slot *worktreepool.Slot, p gobench.Package) string {
	if bin, ok := j.baseAlts[p.ImportPath]; ok {
		return bin
	}
	bin := j.layout(ctx, slot, p, filepath.Join(j.tmp, "base", fileName(p.ImportPath)+".layout.test"))
	j.baseAlts[p.ImportPath] = bin
	return bin
}

// layout builds pkg's test binary in slot in the second code layout
// (gobench.BuildLayout) to bin. It returns bin, or "" when it cannot be
// built; the pairs then all run in the first layout. A failure is logged,
// not reported. The candidate's own build has already passed, and the
// second layout only spreads the samples.
func (j *job) layout(ctx context.Context, slot *worktreepool.Slot, p gobench.Package, bin string) string {
	t0 := time.Now()
	err := gobench.BuildLayout(ctx, slot.Dir(), p, bin, bin+".overlay", j.opts.BuildFlags)
	if err != nil {
		j.log.Debug("no second code layout", "package", p.ImportPath, "err", err)
		return ""
	}
	j.log.Debug("second code layout", "package", p.ImportPath, "took", time.Since(t0).Round(time.Millisecond))
	return bin
}

// allSkipped returns ErrBenchSkipped, with what to do, when the job found
// benchmarks and every one it calibrated printed no result at base.
func (j *job) allSkipped() error {
	n := j.calib.AllSkipped()
	if n == 0 {
		return nil
	}
	hint := ""
	if j.jail != nil {
		hint = "; the sandbox hides $HOME, $TMPDIR and the repository: name a data directory in --bench-arg (it is then shown read-only) or with --sandbox-bind"
	}
	return fmt.Errorf("%w: the %d benchmarks found print no result at base, so nothing was measured (their messages are in the warnings); "+
		"if they need a data directory or flags, pass them with --bench-arg%s", ErrBenchSkipped, n, hint)
}
