package evaluator

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/gobench"
	"github.com/optimizer-dev/optimizer/evaluator/proc"
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
	filter   *regexp.Regexp
	baseWall time.Duration
}

func (j *job) newCmdSampler(ctx context.Context, c *cand, slots []*worktreepool.Slot, filter *regexp.Regexp) (sampler, string, *Failure) {
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

func (s *cmdSampler) close() {}

func (s *cmdSampler) sample(ctx context.Context, sd side) ([]metric, error) {
	slot, err := s.tree(ctx, sd)
	if err != nil {
		return nil, err
	}
	timeout := s.j.opts.Timeout
	if sd == sideCand && s.baseWall > 0 {
		timeout = min(timeout, slowFactor*s.baseWall+slowGrace)
	}
	res, err := proc.Run(ctx, proc.Cmd{Dir: slot.Dir(), Env: slot.Env(), Args: proc.Shell(s.j.bench), Timeout: timeout,
		CPU: s.j.cpu(), MemLimit: s.j.opts.MemLimit})
	if err != nil {
		return nil, err
	}
	switch {
	case res.TimedOut && sd == sideCand && s.baseWall > 0:
		return nil, fmt.Errorf("%w: the bench command took over %s where base takes %s", errTooSlow,
			timeout.Round(time.Millisecond), s.baseWall.Round(time.Millisecond))
	case res.TimedOut:
		return nil, fmt.Errorf("the bench command ran past --timeout %s", timeout)
	case res.Canceled:
		return nil, ctx.Err()
	case res.ExitCode != 0:
		return nil, fmt.Errorf("the bench command exits %d:\n%s", res.ExitCode, tail(string(res.Output), 20))
	}
	if sd == sideBase && res.Wall > s.baseWall {
		s.baseWall = res.Wall
	}
	if ms, err := gobench.ParseOutput(res.Output); err == nil && len(ms) > 0 {
		var out []metric
		for _, m := range ms {
			if s.filter == nil || s.filter.MatchString(m.Bench) {
				out = append(out, metric{bench: m.Bench, unit: m.Unit, value: m.Value, iters: m.Iterations})
			}
		}
		return out, nil
	}
	v := res.Wall
	if s.j.opts.Metric == MetricCPU {
		v = res.CPU
	}
	return []metric{{bench: "command", unit: "sec", value: v.Seconds(), iters: 1}}, nil
}

// tree returns the slot that holds side sd's code, toggling the single slot
// between base and candidate when there is no second slot.
func (s *cmdSampler) tree(ctx context.Context, sd side) (*worktreepool.Slot, error) {
	if s.base != nil {
		if sd == sideBase {
			return s.base, nil
		}
		return s.cand, nil
	}
	switch {
	case sd == sideBase && s.staged:
		if err := s.cand.Reset(ctx); err != nil {
			return nil, fmt.Errorf("reset the slot to base: %w", err)
		}
		s.staged = false
	case sd == sideCand && !s.staged:
		if err := s.j.stage(ctx, s.cand, s.c); err != nil {
			return nil, fmt.Errorf("stage the candidate again: %w", err)
		}
		s.staged = true
	}
	return s.cand, nil
}
