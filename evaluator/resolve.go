package evaluator

import (
	"context"
	"fmt"
	"os/exec"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/evaluator/proc"
)

// resolve gives every candidate its content id: the git tree it produces on
// base. A candidate that is invalid or does not apply fails with kind apply
// here, before it costs a slot. One that produces base's tree, or an earlier
// candidate's, is a duplicate and is not run again. resolve returns the
// candidates it settled, for the caller to report once the job is recorded.
func (j *job) resolve(ctx context.Context) []*cand {
	baseTree, err := treeOf(ctx, j.opts.Repo, j.opts.Base)
	if err != nil {
		j.log.Warn("read base tree", "err", err)
	}
	ids := make([]string, len(j.cands))
	errs := make([]error, len(j.cands))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(2, j.opts.Parallel))
	for i, c := range j.cands {
		if c.c.Invalid != nil {
			errs[i] = c.c.Invalid
			continue
		}
		g.Go(func() error {
			ids[i], errs[i] = candidate.TreeID(gctx, j.opts.Repo, j.opts.Base, c.c)
			return nil
		})
	}
	g.Wait()

	var settled []*cand
	seen := map[string]string{}
	if baseTree != "" {
		seen[baseTree] = "base"
	}
	for i, c := range j.cands {
		c.res.ID = ids[i]
		switch {
		case errs[i] != nil && ctx.Err() == nil:
			c.res.Verdict = VerdictFailed
			c.res.Failure = &Failure{Kind: FailApply, Message: errs[i].Error()}
		case errs[i] != nil:
			continue // cancelled: stays pending
		case seen[ids[i]] != "":
			c.res.Verdict = VerdictDuplicate
			c.res.DuplicateOf = seen[ids[i]]
		default:
			seen[ids[i]] = c.c.Name
			continue
		}
		settled = append(settled, c)
	}
	return settled
}

// pending reports the candidates that still need phase 1.
func (j *job) pending() []*cand {
	var out []*cand
	for _, c := range j.cands {
		if c.res.Verdict == VerdictPending {
			out = append(out, c)
		}
	}
	return out
}

func treeOf(ctx context.Context, repo, rev string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", "-C", repo, "rev-parse", "--verify", "--quiet", rev+"^{tree}")
	proc.Tag(cmd)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git rev-parse %s^{tree}: %w", rev, err)
	}
	return strings.TrimSpace(string(out)), nil
}
