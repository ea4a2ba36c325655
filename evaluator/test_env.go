package evaluator

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/optimizer-dev/optimizer/evaluator/goenv"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// testEnv is the environment a test command gets on top of the slot's:
// GOFLAGS (goenv.TestFlags), and gotmp as GOTMPDIR (see goTmpDir).
func (j *job) testEnv(slotEnv []string, gotmp string) []string {
	return j.withEnv(append(slotEnv, "GOFLAGS="+goenv.TestFlags(j.getenv("GOFLAGS"), j.opts.BuildFlags), "GOTMPDIR="+gotmp))
}

// withEnv is env after the job's own environment (Options.Env), so that
// env's values win.
func (j *job) withEnv(env []string) []string {
	return append(slices.Clone(j.opts.Env), env...)
}

// getenv is the value of name for the job's commands: Options.Env's, else
// the optimizer's own.
func (j *job) getenv(name string) string {
	for i := len(j.opts.Env) - 1; i >= 0; i-- {
		if k, v, _ := strings.Cut(j.opts.Env[i], "="); k == name {
			return v
		}
	}
	return os.Getenv(name)
}

// goTmpDir makes a directory of its own for one run of a go command, to be
// its GOTMPDIR. The go command keeps its build directory (go-build*) there,
// and a run killed at its timeout cannot remove it. The done function
// removes the directory with whatever the run left. It is in the job's
// scratch directory, or in the user's GOTMPDIR when one is set.
func (j *job) goTmpDir() (dir string, done func(), err error) {
	parent := os.Getenv("GOTMPDIR")
	if parent == "" {
		parent = j.tmp
	}
	dir, err = os.MkdirTemp(parent, "gotmp-")
	if err != nil {
		return "", nil, fmt.Errorf("make a GOTMPDIR: %w", err)
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

// acquireForBase acquires a slot for base's tests, proven clean first (see
// proveClean), and only then prepared (--copy-ignored, --setup). So the
// proof does not take what preparing adds for a trespass.
func (j *job) acquireForBase(ctx context.Context) (*worktreepool.Slot, error) {
	inner := j.pool
	pp, prepared := j.pool.(*preparedPool)
	if prepared {
		inner = pp.Pool
	}
	slot, err := inner.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	if err := j.proveClean(ctx, slot); err != nil {
		inner.Release(slot)
		return nil, err
	}
	if prepared {
		if err := j.prepare(ctx, slot); err != nil {
			inner.Release(slot)
			return nil, err
		}
	}
	return slot, nil
}

// proveClean proves a slot clean before it serves base's tests (see
// worktreepool.Slot.Verify), and warns when it was not: an earlier test
// wrote where the slot's watch could not see.
func (j *job) proveClean(ctx context.Context, slot *worktreepool.Slot) error {
	dirty, err := slot.Verify(ctx)
	if err != nil {
		return fmt.Errorf("prove slot %s clean: %w", slot.Name(), err)
	}
	if dirty > 0 {
		j.warn(ctx, "slot %s was not clean before base's tests (%d paths; a test wrote through a hard link?): restored it", slot.Name(), dirty)
	}
	return nil
}
