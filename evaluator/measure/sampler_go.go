package measure

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/gobench"
)

// GoBench is one Go benchmark prepared for measuring: both binaries built,
// the iteration count fixed on base.
type GoBench struct {
	Pkg     gobench.Package
	Name    string
	BaseBin string
	CandBin string
	BaseDir string
	CandDir string
	BaseAt  gobench.Place // how base's and the candidate's processes run
	CandAt  gobench.Place
	// BaseAlt and CandAlt are the same binaries built in a second code
	// layout (gobench.BuildLayout); "" when either side has none, and then
	// every pair runs BaseBin and CandBin.
	BaseAlt  string
	CandAlt  string
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
	slow     float64  // the last base sample's largest time per op over its calibration's (interference.go)
	layout   int      // the code layout of this pair's samples (Rotate)
	env      []string // this pair's environment padding
}

// EnvPads are the sizes, in bytes, of the environment padding that the
// samples of a pair run with, in turn across pairs. The size of the
// environment moves the process's initial stack, and with it the alignment
// of everything on it. See Mytkowicz et al., "Producing wrong data without
// doing anything obviously wrong!", ASPLOS 2009. Steps of 1056 bytes move it
// by half a cache line and a quarter of a page.
var EnvPads = []int{0, 1056, 2112, 3168}

// EnvPadVar is the environment variable that carries the padding.
const EnvPadVar = "OPTIMIZER_ENV_PAD"

// Layouts is the number of code layouts pairs take turns in.
const Layouts = 2

// Setting is the code layout and the environment padding of round r's two
// samples. The layout alternates from pair to pair and the padding changes
// every Layouts pairs, so that any Layouts*len(EnvPads) pairs in a row run
// every combination once.
func Setting(r int) (layout, envPad int) {
	return r % Layouts, EnvPads[(r/Layouts)%len(EnvPads)]
}

// Rotate sets the layout and the environment padding of round r's samples
// (Setting). Both sides of a pair run in the same setting. So what the
// setting does to a sample is the same on both sides of every pair, and
// varies across pairs, where the interval covers it.
func (g *GoSampler) Rotate(r int) {
	layout, pad := Setting(r)
	g.layout = layout
	g.env = []string{EnvPadVar + "=" + strings.Repeat("x", pad)}
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
		if g.layout == 1 && b.BaseAlt != "" && b.CandAlt != "" {
			bin = b.BaseAlt
			if s == Cand {
				bin = b.CandAlt
			}
		}
		at.Env = slices.Concat(at.Env, g.env)
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
