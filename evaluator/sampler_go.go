package evaluator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/gobench"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// Calibration and limits of Go benchmark samples.
const (
	calibrateTarget = 300 * time.Millisecond // one sample's run time
	slowFactor      = 10                     // a candidate sample may take this many times base's
	slowGrace       = 5 * time.Second
)

// goBench is one Go benchmark prepared for measuring: both binaries built,
// the iteration count fixed on base.
type goBench struct {
	pkg      gobench.Package
	name     string
	baseBin  string
	candBin  string
	baseDir  string
	candDir  string
	n        int64
	baseWall time.Duration // the longest base sample so far
}

// goSampler runs one process per benchmark per side.
type goSampler struct {
	benches []*goBench
	cpu     int
	extra   []string
}

func (g *goSampler) close() {}

func (g *goSampler) sample(ctx context.Context, s side) ([]metric, error) {
	var out []metric
	for _, b := range g.benches {
		bin, dir := b.baseBin, b.baseDir
		sctx, cancel := ctx, context.CancelFunc(func() {})
		var limit time.Duration
		if s == sideCand {
			bin, dir = b.candBin, b.candDir
			if b.baseWall > 0 {
				limit = slowFactor*b.baseWall + slowGrace
				sctx, cancel = context.WithTimeout(ctx, limit)
			}
		}
		t0 := time.Now()
		ms, err := gobench.Sample(sctx, bin, dir, b.name, b.n, g.cpu, g.extra)
		wall := time.Since(t0)
		cancel()
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
		}
	}
	return out, nil
}

// newGoSampler finds the benchmarks of the packages c touches (or that import
// them), or every benchmark matching --bench-filter, builds base's test
// binaries once per job and c's now, and calibrates each benchmark's
// iteration count on base once per job.
func (j *job) newGoSampler(ctx context.Context, c *cand, slots []*worktreepool.Slot, filter *regexp.Regexp) (sampler, string, *Failure) {
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
	var benches []*goBench
	for _, p := range pkgs {
		for _, name := range p.Benchmarks {
			if filter != nil && !filter.MatchString(name) {
				continue
			}
			benches = append(benches, &goBench{pkg: p, name: name})
		}
	}
	if len(benches) == 0 {
		return nil, "no benchmark in the packages this candidate changes, or that import them (see --all, --bench, --bench-filter)", nil
	}
	// Base binaries first, while every slot is still at base.
	for _, b := range benches {
		bin, err := j.baseBinary(ctx, baseSlot, b.pkg)
		if err != nil {
			return nil, "", &Failure{Kind: FailError, Message: fmt.Sprintf("build base benchmarks: %v", err)}
		}
		b.baseBin, b.baseDir = bin, filepath.Join(baseSlot.Dir(), b.pkg.Dir)
	}
	if err := j.stage(ctx, candSlot, c); err != nil {
		return nil, "", &Failure{Kind: FailApply, Message: err.Error()}
	}
	bins := map[string]string{}
	for _, b := range benches {
		bin, ok := bins[b.pkg.ImportPath]
		if !ok {
			bin = filepath.Join(j.tmp, "cand", fileName(c.c.Name), fileName(b.pkg.ImportPath)+".test")
			if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
				return nil, "", &Failure{Kind: FailError, Message: err.Error()}
			}
			if err := gobench.Build(ctx, candSlot.Dir(), b.pkg.ImportPath, bin, j.opts.BuildFlags); err != nil {
				return nil, "", &Failure{Kind: FailBuild, Message: "build benchmarks: " + err.Error()}
			}
			bins[b.pkg.ImportPath] = bin
		}
		b.candBin, b.candDir = bin, filepath.Join(candSlot.Dir(), b.pkg.Dir)
		n, err := j.calibration(ctx, b)
		if err != nil {
			return nil, "", &Failure{Kind: FailError, Message: fmt.Sprintf("calibrate %s on base: %v", b.name, err)}
		}
		b.n = n
	}
	j.mu.Lock()
	c.measured = &measured{goBench: benches}
	j.mu.Unlock()
	return &goSampler{benches: benches, cpu: j.cpu(), extra: j.opts.BenchArgs}, "", nil
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

// calibration fixes a benchmark's iteration count on base, once per job, so
// that both sides of every pair do the same work.
func (j *job) calibration(ctx context.Context, b *goBench) (int64, error) {
	key := b.pkg.ImportPath + "." + b.name
	if n, ok := j.calib[key]; ok {
		return n, nil
	}
	n, err := gobench.Calibrate(ctx, b.baseBin, b.baseDir, b.name, calibrateTarget, j.cpu())
	if err != nil {
		return 0, err
	}
	j.calib[key] = n
	return n, nil
}
