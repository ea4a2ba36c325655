package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/gitcmd"
)

// naiveTimes are the medians of the naive ways, per candidate.
type naiveTimes struct {
	add, remove time.Duration // git worktree add and remove alone
	worktree    time.Duration // add + stage + test + remove
	clone       time.Duration // git clone --shared + stage + test + rm -rf
	copy        time.Duration // cp -a + stage + test + rm -rf
}

// naiveAll runs h.naive candidates each naive way on r.
func (h *harness) naiveAll(ctx context.Context, r *synthRepo, dir string) (naiveTimes, error) {
	var add, remove, wt, clone, cp []time.Duration
	cands := r.candidates(h.naive, "naive")
	for i, c := range cands {
		err := h.exclusive(func() error {
			return h.naiveOne(ctx, r, dir, i, c, &add, &remove, &wt, &clone, &cp)
		})
		if err != nil {
			return naiveTimes{}, err
		}
	}
	return naiveTimes{add: median(add), remove: median(remove), worktree: median(wt), clone: median(clone), copy: median(cp)}, nil
}

// naiveOne runs candidate c the three naive ways, adding its times.
func (h *harness) naiveOne(ctx context.Context, r *synthRepo, dir string, i int, c candidate.Candidate, add, remove, wt, clone, cp *[]time.Duration) error {
	{
		tree := filepath.Join(dir, fmt.Sprintf("naive-%d", i))
		var a, rm time.Duration
		total, err := timeIt(func() error {
			var err error
			if a, err = timeIt(func() error {
				_, err := gitIn(ctx, r.dir, "worktree", "add", "--quiet", "--detach", tree, r.base)
				return err
			}); err != nil {
				return err
			}
			if err := stageNaive(ctx, tree, c); err != nil {
				return err
			}
			rm, err = timeIt(func() error {
				_, err := gitIn(ctx, r.dir, "worktree", "remove", "--force", tree)
				return err
			})
			return err
		})
		if err != nil {
			return err
		}
		*add, *remove, *wt = append(*add, a), append(*remove, rm), append(*wt, total)

		d, err := timeIt(func() error {
			if _, err := gitIn(ctx, dir, "clone", "--quiet", "--shared", r.dir, tree); err != nil {
				return err
			}
			if err := stageNaive(ctx, tree, c); err != nil {
				return err
			}
			return os.RemoveAll(tree)
		})
		if err != nil {
			return err
		}
		*clone = append(*clone, d)

		d, err = timeIt(func() error {
			if _, err := runIn(ctx, dir, nil, "cp", "-a", r.dir, tree); err != nil {
				return err
			}
			if err := stageNaive(ctx, tree, c); err != nil {
				return err
			}
			return os.RemoveAll(tree)
		})
		if err != nil {
			return err
		}
		*cp = append(*cp, d)
	}
	return nil
}

// stageNaive stages c in tree with plain git apply or file writes, and runs
// the trivial test there.
func stageNaive(ctx context.Context, tree string, c candidate.Candidate) error {
	if len(c.Patch) > 0 {
		if _, err := gitcmd.Run(ctx, gitcmd.Cmd{Dir: tree, Args: []string{"apply", "-"}, Stdin: bytes.NewReader(c.Patch)}); err != nil {
			return err
		}
	}
	for p, b := range c.Files {
		if err := os.WriteFile(filepath.Join(tree, filepath.FromSlash(p)), b, 0o644); err != nil {
			return err
		}
	}
	_, err := runIn(ctx, tree, nil, "sh", "-c", "true")
	return err
}
