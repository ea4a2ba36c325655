package evaluator

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/optimizer-dev/optimizer/worktreepool"
)

// noTestCache returns the GOFLAGS that every test command runs with: the
// user's GOFLAGS with -count=1 appended, unless they set a -count of their
// own. go test answers from its cache only when every flag is one of its
// cacheable flags, and -count is not one; so with it, go test really runs
// every test. Without it, a test whose outcome depends on something go test
// does not track (a script it runs, a file read by a child process) would
// pass in every candidate after passing once in the same slot: the cache
// forges passes. A user's own --test that runs go test gets the same; a
// command line that sets GOFLAGS itself, or passes -count, decides for itself.
func noTestCache(user string) string {
	for _, f := range strings.Fields(user) {
		if f == "-count" || strings.HasPrefix(f, "-count=") || f == "--count" || strings.HasPrefix(f, "--count=") {
			return user
		}
	}
	return strings.TrimSpace(user + " -count=1")
}

// testEnv is the environment a test command gets on top of the slot's.
func testEnv(slotEnv []string) []string {
	return append(slotEnv, "GOFLAGS="+noTestCache(os.Getenv("GOFLAGS")))
}

// acquireForBase acquires a slot for base's tests, proven clean first (see
// proveClean) and only then prepared (--copy-ignored, --setup), so that
// the proof does not take what preparing adds for a trespass.
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
