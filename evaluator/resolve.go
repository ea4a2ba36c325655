package evaluator

import (
	"context"
	"fmt"
	"runtime"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/shard"
)

// resolve gives every candidate its content id: the git tree it produces on
// base. A candidate that is invalid or does not apply fails with kind apply
// here, before it costs a slot. One that produces base's tree, or an earlier
// candidate's, is a duplicate and is not run again. Both are settled at once.
// Content ids are computed at most max(2, min(N, CPUs)) at a time, in
// candidate order, while earlier candidates already run. The resolve
// function hands each remaining candidate to run as soon as its own id and
// those of the candidates before it are known. That is all a duplicate
// check needs. It returns how many candidates it handed to run, after every
// id is known. A candidate whose id was not known when ctx was cancelled
// stays pending.
func (j *job) resolve(ctx context.Context, run func(*cand)) int {
	type resolved struct {
		id   string
		err  error
		done chan struct{}
	}
	res := make([]resolved, len(j.cands))
	for i := range res {
		res[i].done = make(chan struct{})
	}
	launched := make(chan struct{})
	go func() {
		defer close(launched)
		var g errgroup.Group
		// One per CPU, not one per slot: the first id is on the path to the
		// first test, and N git processes sharing few cores all finish late.
		g.SetLimit(max(2, min(j.size, runtime.NumCPU())))
		for i, c := range j.cands {
			r := &res[i]
			if c.spec.Invalid != nil {
				r.err = c.spec.Invalid
				close(r.done)
				continue
			}
			g.Go(func() error {
				defer close(r.done)
				r.id, r.err = j.treeID(ctx, j.opts.Repo, j.opts.Base, c.spec)
				return nil
			})
		}
		g.Wait()
	}()
	defer func() { <-launched }()

	baseTree, err := treeOf(ctx, j.opts.Repo, j.opts.Base)
	if err != nil {
		j.log.Warn("read base tree", "err", err)
	}
	seen := map[string]string{}
	if baseTree != "" {
		seen[baseTree] = "base"
	}
	ran := 0
	for i, c := range j.cands {
		r := &res[i]
		<-r.done
		j.mu.Lock()
		c.res.ID = r.id
		switch {
		case r.err != nil && ctx.Err() == nil:
			c.res.Verdict = VerdictFailed
			c.res.Failure = &Failure{Kind: FailApply, Message: r.err.Error()}
		case r.err != nil:
			// cancelled: stays pending
		case seen[r.id] != "":
			c.res.Verdict = VerdictDuplicate
			c.res.DuplicateOf = seen[r.id]
		default:
			seen[r.id] = c.spec.Name
		}
		verdict := c.res.Verdict
		elsewhere := verdict == VerdictPending && r.err == nil && !j.opts.Shard.Holds(r.id)
		if elsewhere {
			c.res.Note = fmt.Sprintf("left to shard %d/%d", shard.Of(r.id, j.opts.Shard.N), j.opts.Shard.N)
		}
		j.mu.Unlock()
		if ctx.Err() == nil {
			j.log.Debug("candidate resolved", "candidate", c.spec.Name, "id", r.id, "verdict", verdict)
		}
		switch {
		case verdict != VerdictPending:
			j.settle(ctx, c)
		case elsewhere:
			j.saveCandidate(ctx, c) // its content id, for merging
		case r.err == nil && ctx.Err() == nil:
			ran++
			run(c)
		}
	}
	return ran
}

func treeOf(ctx context.Context, repo, rev string) (string, error) {
	out, err := gitcmd.Run(ctx, gitcmd.Cmd{Args: []string{"-C", repo, "rev-parse", "--verify", "--quiet", rev + "^{tree}"}, ReadOnly: true})
	if err != nil {
		return "", fmt.Errorf("git rev-parse %s^{tree}: %w", rev, err)
	}
	return strings.TrimSpace(string(out)), nil
}
