package measure

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"syscall"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/gobench"
)

// GoBench is one Go benchmark prepared for measuring: both binaries built,
// the iteration count fixed on base.
type GoBench struct {
	Pkg      gobench.Package
	Name     string
	BaseBin  string
	CandBin  string
	BaseDir  string
	CandDir  string
	BaseAt   gobench.Place // how base's and the candidate's processes run
	CandAt   gobench.Place
	RunBin   string // the path both sides' samples run from (freshCopy)
	N        int64
	baseWall time.Duration // the longest base sample so far
	CalSec   float64       // base's time per op when calibrated, in seconds (0: unknown)
}

// GoSampler runs one process per benchmark per side.
type GoSampler struct {
	benches  []*GoBench
	extra    []string
	onlyBase func(ctx context.Context, bench, said string)
	slow     float64 // the last base sample's largest time per op over its calibration's (interference.go)
}

// NewGoSampler samples benches, each run with the arguments extra. A
// benchmark that prints no result in the candidate is no longer measured,
// and onlyBase is told what it said.
func NewGoSampler(benches []*GoBench, extra []string, onlyBase func(ctx context.Context, bench, said string)) *GoSampler {
	return &GoSampler{benches: benches, extra: extra, onlyBase: onlyBase}
}

// drop stops measuring b. A round's benchmarks are those both sides
// printed, so what was measured of b on one side only is never paired.
func (g *GoSampler) drop(b *GoBench) {
	g.benches = slices.DeleteFunc(slices.Clone(g.benches), func(x *GoBench) bool { return x == b })
}

// Sample runs every benchmark once on side s.
func (g *GoSampler) Sample(ctx context.Context, s Side) ([]Metric, error) {
	var out []Metric
	if len(g.benches) == 0 {
		return nil, errors.New("no benchmark prints a result on both sides")
	}
	g.slow = 0
	for _, b := range slices.Clone(g.benches) {
		bin, dir, at := b.BaseBin, b.BaseDir, b.BaseAt
		if s == Cand {
			bin, dir, at = b.CandBin, b.CandDir, b.CandAt
		}
		if err := freshCopy(bin, b.RunBin); err != nil {
			return nil, fmt.Errorf("%s: %w", b.Name, err)
		}
		sctx, cancel := ctx, context.CancelFunc(func() {})
		var limit time.Duration
		if s == Cand && b.baseWall > 0 {
			limit = SlowFactor*b.baseWall + SlowGrace
			sctx, cancel = context.WithTimeout(ctx, limit)
		}
		t0 := time.Now()
		ms, err := gobench.Sample(sctx, b.RunBin, dir, b.Name, b.N, at, g.extra)
		wall := time.Since(t0)
		cancel()
		var nr *gobench.NoResultError
		if s == Cand && errors.As(err, &nr) {
			// At base it has a result (calibration saw one): the benchmark
			// exists only on base's side of this candidate.
			g.onlyBase(ctx, b.Name, nr.Said)
			g.drop(b)
			continue
		}
		if err != nil {
			if limit > 0 && ctx.Err() == nil && errors.Is(sctx.Err(), context.DeadlineExceeded) {
				return nil, fmt.Errorf("%w: %s took over %s where base takes %s", ErrTooSlow, b.Name,
					limit.Round(time.Millisecond), b.baseWall.Round(time.Millisecond))
			}
			return nil, fmt.Errorf("%s: %w", b.Name, err)
		}
		if s == Base && wall > b.baseWall {
			b.baseWall = wall
		}
		for _, m := range ms {
			out = append(out, Metric{Bench: m.Bench, Unit: m.Unit, Value: m.Value, Iters: m.Iterations})
			if s == Base && m.Unit == "sec/op" && m.Bench == b.Name && b.CalSec > 0 {
				g.slow = max(g.slow, m.Value/b.CalSec)
			}
		}
	}
	return out, nil
}

// freshCopy writes bin's bytes to a new file at run, through a temporary
// file renamed into place, before every sample. Base's and the candidate's
// samples then run from the same path. Their processes differ in nothing but
// the binary's bytes and the tree they run in, and neither side keeps a file
// of its own. A byte-identical copy of a test binary, run as a file of its
// own, was measured up to 6% apart from the original, steadily over a trial.
// A fixed file per side makes that a bias that the random order of the pairs
// cannot touch. A new file per sample makes it noise that the order averages
// out (docs/measuring.md, "Identical binaries, different files"). Forks wait
// while the copy is open for writing (syscall.ForkLock). So no child of this
// process holds it open when it is run (ETXTBSY).
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
