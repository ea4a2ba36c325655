// Package calibrate expands a job's top-level Go benchmarks into the
// benchmarks it measures, each sub-benchmark with its own iteration count,
// calibrated on base once per job. The job passes in its cache and its
// warnings as hooks.
package calibrate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/gobench"
	"github.com/optimizer-dev/optimizer/evaluator/measure"
)

// Calibrator calibrates a job's benchmarks on base and remembers them.
// It is not safe for concurrent use: the job calibrates one candidate's
// benchmarks at a time.
type Calibrator struct {
	Target time.Duration // one sample's run time, to which counts are calibrated
	Args   []string      // the benchmarks' arguments (--bench-arg)
	// Key is the cache key of b's calibration with the -test.bench pattern;
	// "" is none.
	Key func(b *measure.GoBench, pattern string) string
	// Cached returns the counts stored under key, when there are.
	Cached func(ctx context.Context, key string) ([]gobench.Count, bool)
	// Put stores the counts under key.
	Put func(ctx context.Context, key string, counts []gobench.Count)
	// Warn adds a warning to the job.
	Warn func(ctx context.Context, format string, args ...any)

	counts  map[string][]gobench.Count // package.benchmark -> iterations of it and its sub-benchmarks
	skipped map[string]bool            // package.benchmark -> prints no result at base
}

// Scale is the largest factor by which a count was scaled to CPU time,
// because its calibration shared a busy CPU (gobench.CPUScale); 1 when none
// was.
func (c *Calibrator) Scale() float64 {
	scale := 1.0
	for _, counts := range c.counts {
		for _, cnt := range counts {
			scale = max(scale, gobench.CPUScale(cnt.Share))
		}
	}
	return scale
}

// Expand expands the top-level benchmarks into the benchmarks to measure,
// each sub-benchmark on its own with its own iteration count. A benchmark
// without a result at base is left out, with one warning for the job that
// shows what it said (its b.Skip message) and how to pass it arguments.
// With a filter whose sub-benchmark parts select nothing in any of tops,
// the error wraps measure.ErrBenchFilter and lists what exists.
func (c *Calibrator) Expand(ctx context.Context, tops []*measure.GoBench, filter *gobench.Filter) ([]*measure.GoBench, error) {
	var out []*measure.GoBench
	skipped := false
	for _, top := range tops {
		counts, err := c.calibration(ctx, top, filter)
		if err != nil {
			return nil, err
		}
		skipped = skipped || c.skipped[top.Pkg.ImportPath+"."+top.Name]
		for _, cnt := range counts {
			if filter != nil && !filter.Match(cnt.Bench) {
				continue
			}
			b := *top
			b.Name, b.N, b.CalSec = cnt.Bench, cnt.N, cnt.SecPerOp
			out = append(out, &b)
		}
	}
	if len(out) == 0 && filter != nil && !skipped {
		return nil, fmt.Errorf("%w: --bench-filter %q matches no benchmark; the benchmarks are: %s",
			measure.ErrBenchFilter, filter, c.allNames(ctx, tops))
	}
	return out, nil
}

// AllSkipped is the number of benchmarks that printed no result at base
// when every benchmark calibrated so far did; 0 when any printed one.
func (c *Calibrator) AllSkipped() int {
	for _, counts := range c.counts {
		if len(counts) > 0 {
			return 0
		}
	}
	return len(c.skipped)
}

// calibration returns the counts of a top-level benchmark and of the
// sub-benchmarks filter can select, from base, once per job.
func (c *Calibrator) calibration(ctx context.Context, b *measure.GoBench, filter *gobench.Filter) ([]gobench.Count, error) {
	if c.counts == nil {
		c.counts, c.skipped = map[string][]gobench.Count{}, map[string]bool{}
	}
	key := b.Pkg.ImportPath + "." + b.Name
	if counts, ok := c.counts[key]; ok {
		return counts, nil
	}
	ckey := c.Key(b, filter.Pattern(b.Name))
	if counts, ok := c.Cached(ctx, ckey); ok {
		c.counts[key] = counts
		return counts, nil
	}
	counts, err := gobench.Calibrate(ctx, b.BaseBin, b.BaseDir, filter.Pattern(b.Name), c.Target, b.BaseAt, c.Args)
	if err == nil && ckey != "" && len(counts) > 0 {
		c.Put(ctx, ckey, counts)
	}
	var nr *gobench.NoResultError
	switch {
	case errors.As(err, &nr) && filter != nil && filter.String() != "" && !filter.Match(b.Name):
		// The filter's sub-benchmark parts select none of its subs.
		counts = nil
	case errors.As(err, &nr):
		c.Warn(ctx, "%s (%s) prints no benchmark result at base, so it is not measured; "+
			"if it needs arguments (a data directory, a flag), pass them with --bench-arg, e.g. --bench-arg -datadir=DIR. It said:\n%s",
			b.Name, b.Pkg.ImportPath, Indent(nr.Said))
		counts = nil
		c.skipped[key] = true
	case err != nil:
		return nil, fmt.Errorf("calibrate %s on base: %w", b.Name, err)
	}
	c.counts[key] = counts
	return counts, nil
}

// allNames lists every benchmark of tops, sub-benchmarks included, from a
// run of one iteration each at base, for a message.
func (c *Calibrator) allNames(ctx context.Context, tops []*measure.GoBench) string {
	var names []string
	for _, b := range tops {
		ms, err := gobench.Sample(ctx, b.BaseBin, b.BaseDir, b.Name, 1, b.BaseAt, c.Args)
		if err != nil {
			names = append(names, b.Name)
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

// Indent indents each line of s by four spaces, for what a benchmark said
// inside a warning.
func Indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}
