package evaluator

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/benchformat"
	"github.com/optimizer-dev/optimizer/evaluator/gobench"
	"github.com/optimizer-dev/optimizer/evaluator/measure"
	"github.com/optimizer-dev/optimizer/evaluator/reportfiles"
	"github.com/optimizer-dev/optimizer/proc"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// cmdTrees holds both sides' code for a bench command (measure.Command).
// Base runs in a second slot when there is one; with a single slot, the
// slot is reset to base and staged again between sides.
type cmdTrees struct {
	j      *job
	c      *cand
	cand   *worktreepool.Slot
	base   *worktreepool.Slot // nil: toggle cand between base and candidate
	staged bool
}

func (j *job) newCmdSampler(ctx context.Context, c *cand, slots []*worktreepool.Slot, filter *gobench.Filter) (measure.Sampler, string, *Failure) {
	t := &cmdTrees{j: j, c: c, cand: slots[0]}
	if len(slots) > 1 {
		t.base = slots[1]
	}
	if err := j.stage(ctx, t.cand, c); err != nil {
		return nil, "", &Failure{Kind: FailApply, Message: err.Error()}
	}
	t.staged = true
	return &measure.Command{
		Run:      t.run,
		Timeout:  j.opts.Timeout,
		Results:  measure.Results{Format: benchformat.Format(j.opts.BenchFormat), Reports: j.benchReports, CPU: j.opts.Metric == MetricCPU},
		RSS:      j.opts.Metric == MetricRSS,
		Filter:   filter,
		MinPairs: j.opts.MinPairs,
		Name:     c.spec.Name,
		Warn: func(ctx context.Context, kind, msg string) {
			if j.warnOnce(kind) {
				j.warn(ctx, "%s", msg)
			}
		},
		Stop: func(err error) { j.stop = err },
	}, "", nil
}

// run runs the bench command once in the tree of side sd.
func (t *cmdTrees) run(ctx context.Context, sd measure.Side, timeout time.Duration, stdout io.Writer) (string, proc.Result, error) {
	j := t.j
	slot, err := t.tree(ctx, sd)
	if err != nil {
		return "", proc.Result{}, err
	}
	if err := reportfiles.Clear(slot.Dir(), j.benchReports); err != nil {
		return "", proc.Result{}, err
	}
	res, err := proc.Run(ctx, proc.Cmd{Dir: slot.Dir(), Env: j.withEnv(slot.Env()), Args: proc.Shell(j.bench), Timeout: timeout,
		CPU: j.cpu(), MemLimit: j.opts.MemLimit, Sandbox: j.box(slot, nil, nil), Stdout: stdout,
		PeakRSS: j.opts.Metric == MetricRSS})
	return slot.Dir(), res, err
}

// tree returns the slot that holds side sd's code, toggling the single slot
// between base and candidate when there is no second slot.
func (t *cmdTrees) tree(ctx context.Context, sd measure.Side) (*worktreepool.Slot, error) {
	if t.base != nil {
		if sd == measure.Base {
			return t.base, nil
		}
		return t.cand, nil
	}
	switch {
	case sd == measure.Base && t.staged:
		if err := t.cand.Reset(ctx); err != nil {
			return nil, fmt.Errorf("reset the slot to base: %w", err)
		}
		t.staged = false
		// The reset removed what preparing the slot added.
		if err := t.j.prepare(ctx, t.cand); err != nil {
			return nil, err
		}
	case sd == measure.Cand && !t.staged:
		if err := t.j.stage(ctx, t.cand, t.c); err != nil {
			return nil, fmt.Errorf("stage the candidate again: %w", err)
		}
		t.staged = true
	}
	return t.cand, nil
}
