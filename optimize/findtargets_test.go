package optimize

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// TestFindTargets profiles in a slot of the pool: the hottest function
// without named targets, and a named target that cannot be profiled goes on
// without a profile, said.
func TestFindTargets(t *testing.T) {
	testenv.Once(t)
	ctx := context.Background()
	repo, base := newTestRepo(t)
	pool, err := worktreepool.Open(ctx, worktreepool.Options{Repo: repo, Base: base, Size: 1,
		Dir: filepath.Join(t.TempDir(), "slots"), MachineLock: filepath.Join(t.TempDir(), "lock")})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close(ctx)
	var said []string
	say := func(msg string) { said = append(said, msg) }

	hot, err := FindTargets(ctx, pool, repo, base, "", 1, nil, say)
	if err != nil {
		t.Fatal(err)
	}
	if len(hot) != 1 || hot[0].Name != "sumsq.SumSquares" || hot[0].Profile == nil {
		t.Fatalf("targets %+v, want sumsq.SumSquares with its profile", hot)
	}
	if len(said) != 2 || !strings.HasPrefix(said[0], "no --target: ") || !strings.HasPrefix(said[1], "target sumsq.SumSquares (sumsq/sumsq.go:") {
		t.Errorf("said %q", said)
	}

	said = nil
	named, err := ResolveTargets(ctx, repo, base, []string{"sumsq.SumSquares"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := FindTargets(ctx, pool, repo, base, "^NoSuchBenchmark$", 1, named, say)
	if err != nil || len(got) != 1 || got[0].Name != "sumsq.SumSquares" {
		t.Fatalf("FindTargets(named, no benchmark) = %+v, %v; want the target", got, err)
	}
	if len(said) != 1 || !strings.HasPrefix(said[0], "the targets go to generators without a profile: ") {
		t.Errorf("said %q, want the profile's failure", said)
	}
}
