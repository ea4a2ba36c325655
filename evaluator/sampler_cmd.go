package evaluator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/gobench"
	"github.com/optimizer-dev/optimizer/evaluator/measure"
	"github.com/optimizer-dev/optimizer/evaluator/reportfiles"
	"github.com/optimizer-dev/optimizer/evaluator/testjudge"
	"github.com/optimizer-dev/optimizer/proc"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// cmdSampler runs a bench command once per sample. Its metrics are the Go
// benchmark lines it prints, or else its wall or CPU time. Base runs in a
// second slot when there is one; with a single slot, the slot is reset to
// base and staged again between sides.
type cmdSampler struct {
	j        *job
	c        *cand
	cand     *worktreepool.Slot
	base     *worktreepool.Slot // nil: toggle cand between base and candidate
	staged   bool
	filter   *gobench.Filter
	baseWall time.Duration
	check    benchCheck
}

func (j *job) newCmdSampler(ctx context.Context, c *cand, slots []*worktreepool.Slot, filter *gobench.Filter) (measure.Sampler, string, *Failure) {
	s := &cmdSampler{j: j, c: c, cand: slots[0], filter: filter}
	if len(slots) > 1 {
		s.base = slots[1]
	}
	if err := j.stage(ctx, s.cand, c); err != nil {
		return nil, "", &Failure{Kind: FailApply, Message: err.Error()}
	}
	s.staged = true
	return s, "", nil
}

func (s *cmdSampler) Sample(ctx context.Context, sd measure.Side) ([]measure.Metric, error) {
	slot, err := s.tree(ctx, sd)
	if err != nil {
		return nil, err
	}
	timeout := s.j.opts.Timeout
	if sd == measure.Cand && s.baseWall > 0 {
		timeout = min(timeout, measure.SlowFactor*s.baseWall+measure.SlowGrace)
	}
	if err := reportfiles.Clear(slot.Dir(), s.j.benchReports); err != nil {
		return nil, err
	}
	stdout := &cappedBuffer{max: reportfiles.MaxBytes}
	res, err := proc.Run(ctx, proc.Cmd{Dir: slot.Dir(), Env: s.j.withEnv(slot.Env()), Args: proc.Shell(s.j.bench), Timeout: timeout,
		CPU: s.j.cpu(), MemLimit: s.j.opts.MemLimit, Sandbox: s.j.box(slot, nil, nil), Stdout: stdout,
		PeakRSS: s.j.opts.Metric == MetricRSS})
	if err != nil {
		return nil, err
	}
	switch {
	case res.TimedOut && sd == measure.Cand && s.baseWall > 0:
		return nil, fmt.Errorf("%w: the bench command took over %s where base takes %s", measure.ErrTooSlow,
			timeout.Round(time.Millisecond), s.baseWall.Round(time.Millisecond))
	case res.TimedOut:
		return nil, fmt.Errorf("the bench command ran past --timeout %s", timeout)
	case res.Canceled:
		return nil, ctx.Err()
	case res.ExitCode != 0:
		return nil, fmt.Errorf("the bench command exits %d:\n%s", res.ExitCode, testjudge.Tail(string(res.Output), 20))
	}
	if sd == measure.Base && res.Wall > s.baseWall {
		s.baseWall = res.Wall
	}
	ms, err := s.j.benchResults(slot.Dir(), stdout.b, res.Output)
	if err != nil {
		return nil, err
	}
	// With --metric rss the sample's peak memory is judged, and what the
	// command prints, or its time, goes beside it.
	var peak []measure.Metric
	if s.j.opts.Metric == MetricRSS {
		if res.MaxRSS <= 0 {
			return nil, errors.New("the bench command's peak memory could not be measured here: --metric rss needs Linux, or a Unix without the sandbox")
		}
		peak = []measure.Metric{{Bench: "command", Unit: measure.PeakUnit, Value: float64(res.MaxRSS), Iters: 1}}
	}
	if len(ms) > 0 {
		var out []measure.Metric
		for _, m := range ms {
			if s.filter == nil || s.filter.Match(m.Bench) {
				out = append(out, measure.Metric{Bench: m.Bench, Unit: m.Unit, Value: m.Value, Iters: m.Iterations})
			}
		}
		if len(out) == 0 && sd == measure.Base {
			// The filter selects none of what the command prints: a
			// problem of the job, not of this candidate.
			s.j.stop = fmt.Errorf("%w: --bench-filter %q matches none of the benchmarks the bench command prints: %s",
				ErrBenchFilter, s.filter, benchNames(ms))
			return nil, s.j.stop
		}
		return append(peak, out...), nil
	}
	v := res.Wall
	if s.j.opts.Metric == MetricCPU {
		v = res.CPU
	}
	if peak == nil {
		s.checkTime(ctx, sd, v, res.Output)
	}
	return append(peak, measure.Metric{Bench: "command", Unit: "sec", Value: v.Seconds(), Iters: 1}), nil
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
// code apart: its output looks like a self-calibrating timer's, or its time
// is the same on both sides while the numbers it prints are not.
func (s *cmdSampler) checkTime(ctx context.Context, sd measure.Side, v time.Duration, output []byte) {
	if seen, ok := selfTimed(output); ok && s.j.warnOnce("self-timed") {
		s.j.warn(ctx, "the bench command's output looks self-calibrated (%q): such a command runs for about the same time "+
			"whatever the code does, and its time is what is judged. Print the result as a Go benchmark line "+
			"(\"BenchmarkX 1 234000 ns/op\") and that is judged instead; see optimizer run --help", seen)
	}
	s.check.add(sd, v.Seconds(), output)
	if msg := s.check.verdict(s.j.opts.MinPairs); msg != "" && s.j.warnOnce("time-vs-printed") {
		s.j.warn(ctx, "%s: %s", s.c.spec.Name, msg)
	}
}

// tree returns the slot that holds side sd's code, toggling the single slot
// between base and candidate when there is no second slot.
func (s *cmdSampler) tree(ctx context.Context, sd measure.Side) (*worktreepool.Slot, error) {
	if s.base != nil {
		if sd == measure.Base {
			return s.base, nil
		}
		return s.cand, nil
	}
	switch {
	case sd == measure.Base && s.staged:
		if err := s.cand.Reset(ctx); err != nil {
			return nil, fmt.Errorf("reset the slot to base: %w", err)
		}
		s.staged = false
		// The reset removed what preparing the slot added.
		if err := s.j.prepare(ctx, s.cand); err != nil {
			return nil, err
		}
	case sd == measure.Cand && !s.staged:
		if err := s.j.stage(ctx, s.cand, s.c); err != nil {
			return nil, fmt.Errorf("stage the candidate again: %w", err)
		}
		s.staged = true
	}
	return s.cand, nil
}
