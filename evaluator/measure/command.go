package measure

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/gobench"
	"github.com/optimizer-dev/optimizer/evaluator/reportfiles"
	"github.com/optimizer-dev/optimizer/excerpt"
	"github.com/optimizer-dev/optimizer/proc"
)

// ErrBenchFilter stops a job whose --bench-filter selects no benchmark.
var ErrBenchFilter = errors.New("bad benchmark filter")

// Command samples a bench command: one run per sample. Its metrics are the
// benchmark results it prints or writes (Results), or else its wall or CPU
// time; with RSS, its peak memory is judged and they go beside it.
type Command struct {
	// Run runs the command once on side sd's code, bounded by timeout, with
	// its stdout also written to stdout. It returns the directory it ran in
	// and the run's result; the error is for a command that could not start.
	Run      func(ctx context.Context, sd Side, timeout time.Duration, stdout io.Writer) (string, proc.Result, error)
	Timeout  time.Duration
	Results  Results
	RSS      bool
	Filter   *gobench.Filter // nil: every benchmark the command prints
	MinPairs int             // pairs of each side before the time check judges
	Name     string          // the candidate, for the time check's warning
	// Warn warns of kind once a job; Stop stops the job for a problem
	// that is not the candidate's.
	Warn func(ctx context.Context, kind, msg string)
	Stop func(err error)

	baseWall time.Duration // the longest base sample so far
	check    timeCheck
}

// Sample runs the command once on side sd.
func (s *Command) Sample(ctx context.Context, sd Side) ([]Metric, error) {
	timeout := s.Timeout
	if sd == Cand && s.baseWall > 0 {
		timeout = min(timeout, SlowFactor*s.baseWall+SlowGrace)
	}
	stdout := &cappedBuffer{max: reportfiles.MaxBytes}
	dir, res, err := s.Run(ctx, sd, timeout, stdout)
	if err != nil {
		return nil, err
	}
	switch {
	case res.TimedOut && sd == Cand && s.baseWall > 0:
		return nil, fmt.Errorf("%w: the bench command took over %s where base takes %s", ErrTooSlow,
			timeout.Round(time.Millisecond), s.baseWall.Round(time.Millisecond))
	case res.TimedOut:
		return nil, fmt.Errorf("the bench command ran past --timeout %s", timeout)
	case res.Canceled:
		return nil, ctx.Err()
	case res.ExitCode != 0:
		return nil, fmt.Errorf("the bench command exits %d:\n%s", res.ExitCode, excerpt.Tail(string(res.Output), 20))
	}
	if sd == Base && res.Wall > s.baseWall {
		s.baseWall = res.Wall
	}
	ms, err := s.Results.Read(dir, stdout.b, res.Output)
	if err != nil {
		return nil, err
	}
	var peak []Metric
	if s.RSS {
		if res.MaxRSS <= 0 {
			return nil, errors.New("the bench command's peak memory could not be measured here: --metric rss needs Linux, or a Unix without the sandbox")
		}
		peak = []Metric{{Bench: "command", Unit: PeakUnit, Value: float64(res.MaxRSS), Iters: 1}}
	}
	if len(ms) > 0 {
		var out []Metric
		for _, m := range ms {
			if s.Filter == nil || s.Filter.Match(m.Bench) {
				out = append(out, Metric{Bench: m.Bench, Unit: m.Unit, Value: m.Value, Iters: m.Iterations})
			}
		}
		if len(out) == 0 && sd == Base {
			// The filter selects none of what the command prints: a
			// problem of the job, not of this candidate.
			err := fmt.Errorf("%w: --bench-filter %q matches none of the benchmarks the bench command prints: %s",
				ErrBenchFilter, s.Filter, benchNames(ms))
			s.Stop(err)
			return nil, err
		}
		return append(peak, out...), nil
	}
	v := res.Wall
	if s.Results.CPU {
		v = res.CPU
	}
	if peak == nil {
		s.checkTime(ctx, sd, v, res.Output)
	}
	return append(peak, Metric{Bench: "command", Unit: "sec", Value: v.Seconds(), Iters: 1}), nil
}

// benchNames lists the benchmark names in ms, once each.
func benchNames(ms []gobench.Measurement) string {
	var names []string
	for _, m := range ms {
		if !slices.Contains(names, m.Bench) {
			names = append(names, m.Bench)
		}
	}
	return strings.Join(names, ", ")
}

// checkTime warns, once a job, when the time of a bench command cannot tell
// code apart. Either its output looks like a self-calibrating timer's, or
// its time is the same on both sides while the numbers it prints are not.
func (s *Command) checkTime(ctx context.Context, sd Side, v time.Duration, output []byte) {
	if seen, ok := selfTimed(output); ok {
		s.Warn(ctx, "self-timed", fmt.Sprintf("the bench command's output looks self-calibrated (%q): such a command runs for about the same time "+
			"whatever the code does, and its time is what is judged. Print the result as a Go benchmark line "+
			"(\"BenchmarkX 1 234000 ns/op\") and that is judged instead; see optimizer run --help", seen))
	}
	s.check.add(sd, v.Seconds(), output)
	if msg := s.check.verdict(s.MinPairs); msg != "" {
		s.Warn(ctx, "time-vs-printed", s.Name+": "+msg)
	}
}
