package optimize

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/jobspec"
	"github.com/optimizer-dev/optimizer/store"
	"github.com/optimizer-dev/optimizer/testdata"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// newTestRepo writes the fixture module, commits it, and returns the
// repository and its commit.
func newTestRepo(tb testing.TB) (repo, base string) {
	tb.Helper()
	repo = filepath.Join(tb.TempDir(), "repo")
	if err := testdata.WriteFixture(repo); err != nil {
		tb.Fatal(err)
	}
	base, err := testdata.InitRepo(context.Background(), repo)
	if err != nil {
		tb.Fatal(err)
	}
	return repo, base
}

func TestResolveTargets(t *testing.T) {
	repo, base := newTestRepo(t)
	for _, tt := range []struct {
		spec, want, err string
	}{
		{spec: "sumsq.SumSquares", want: "sumsq.SumSquares"},
		{spec: "SumSquares", want: "sumsq.SumSquares"},
		{spec: "sumsq/sumsq.go:SumSquares", want: "sumsq.SumSquares"},
		{spec: "sumsq.go:SumSquares", want: "sumsq.SumSquares"},
		{spec: "sumsq.Nothing", err: "no such function"},
		{spec: "words.go:SumSquares", err: "no such function"},
		{spec: "sumsq/sumsq_test.go.txt:x", err: "no such function"},
	} {
		t.Run(tt.spec, func(t *testing.T) {
			got, err := ResolveTargets(context.Background(), repo, base, []string{tt.spec})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.Is(err, ErrNoTarget) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			g := got[0]
			if g.Name != tt.want || g.File != "sumsq/sumsq.go" || !strings.Contains(g.Source, "func SumSquares(xs []int) int {") ||
				g.Line < 1 || g.EndLine <= g.Line {
				t.Errorf("got %+v", g)
			}
		})
	}
}

// TestRunStdout: a generator that fails, times out or prints nonsense gives
// no candidate and an error that says why, with its stderr kept; a good one
// gives its candidates.
func TestRunStdout(t *testing.T) {
	req := Request{Schema: Schema, Mode: ModeGenerate, Target: Target{Name: "x.F"}}
	for _, tt := range []struct {
		name, command string
		timeout       time.Duration
		want          int
		err, stderr   string
		exit          int
	}{
		{name: "Good", command: `cat >/dev/null; printf '%s\n' '{"name":"a","files":{"x.go":"package x\n"}}' '{"name":"b","patch":"diff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-a\n+b\n"}'`, want: 2},
		{name: "ReadsRequest", command: `grep -q '"mode": "generate"' && echo '{"name":"a","files":{"x.go":"y"}}'`, want: 1},
		{name: "RequestFile", command: `grep -q '"x.F"' "$OPTIMIZER_REQUEST" && echo '{"name":"a","files":{"x.go":"y"}}'`, want: 1},
		{name: "Exit", command: `echo boom >&2; exit 3`, err: "it exited 3: boom", stderr: "boom", exit: 3},
		{name: "Malformed", command: `echo '{"name": 1}'`, err: "read its candidates"},
		{name: "Nothing", command: `true`, err: "it printed no candidate"},
		{name: "Timeout", command: `sleep 30`, timeout: 200 * time.Millisecond, err: "timed out"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := runStdout(context.Background(), Generator{Name: "g", Command: tt.command, Timeout: tt.timeout}, req, t.TempDir())
			if tt.err != "" {
				if c.err == nil || !strings.Contains(c.err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", c.err, tt.err)
				}
			} else if c.err != nil {
				t.Fatalf("err = %v (stderr %q)", c.err, c.stderr)
			}
			if len(c.cands) != tt.want && tt.err == "" {
				t.Errorf("%d candidates, want %d", len(c.cands), tt.want)
			}
			if !strings.Contains(c.stderr, tt.stderr) || (tt.exit != 0 && c.exit != tt.exit) {
				t.Errorf("stderr %q exit %d; want %q and %d", c.stderr, c.exit, tt.stderr, tt.exit)
			}
			var back Request
			if err := json.Unmarshal(c.request, &back); err != nil || back.Schema != Schema {
				t.Errorf("the request kept is not the one sent: %v %q", err, c.request)
			}
		})
	}
}

// loopEnv is a real pool and store on the fixture repository.
type loopEnv struct {
	repo, base string
	pool       *worktreepool.Pool
	db         *store.DB
}

func newLoopEnv(t *testing.T) *loopEnv {
	t.Helper()
	ctx := context.Background()
	repo, base := newTestRepo(t)
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "store.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	pool, err := worktreepool.Open(ctx, worktreepool.Options{Repo: repo, Base: base, Size: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := pool.Close(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return &loopEnv{repo: repo, base: base, pool: pool, db: db}
}

func (e *loopEnv) loop(t *testing.T, gens ...Generator) *Loop {
	t.Helper()
	targets, err := ResolveTargets(context.Background(), e.repo, e.base, []string{"sumsq.SumSquares"})
	if err != nil {
		t.Fatal(err)
	}
	return &Loop{
		Repo: e.repo, Base: e.base, Generators: gens, Targets: targets, Repairs: DefaultRepairs, Parallel: 2,
		Spec: jobspec.Spec{Timeout: jobspec.Duration(time.Minute), MaxPairs: 12, BenchBudget: jobspec.Duration(30 * time.Second),
			NoPin: true, NoProfile: true},
		Options: specOptions(e.repo, e.base, t.TempDir()),
		Pool:    e.pool, DB: e.db,
	}
}

// specOptions is a Loop.Options as cmd's: a job spec's options in repo at
// base, with its artifacts under artifacts, recording the spec.
func specOptions(repo, base, artifacts string) func(jobspec.Spec) (evaluator.Options, error) {
	return func(s jobspec.Spec) (evaluator.Options, error) {
		o := evaluator.OptionsOf(s)
		o.Repo, o.Base, o.Artifacts = repo, base, artifacts
		var err error
		o.Config, err = jobspec.Record(s, base, 1, artifacts, false)
		return o, err
	}
}

// buildGenerator builds the example generator (examples/generator).
func buildGenerator(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "generator")
	if out, err := exec.Command("go", "build", "-o", bin, "../examples/generator").CombinedOutput(); err != nil {
		t.Fatalf("build the example generator: %v\n%s", err, out)
	}
	return bin
}

// TestLoop_Example drives the whole loop with the example generator. Its
// first rewrite fails a test and goes back for repair. The repair is faster
// and goes back to be refined. The winner is measured again and confirmed,
// and the lineage and every call are in the store. A generator that fails
// beside it is recorded and does not stop the loop. The repository is left
// as it was.
func TestLoop_Example(t *testing.T) {
	testenv.Once(t)
	ctx := context.Background()
	env := newLoopEnv(t)
	before := testenv.RepoState(t, env.repo)
	gen := buildGenerator(t)
	l := env.loop(t,
		Generator{Name: "example", Command: gen},
		Generator{Name: "broken", Command: "echo 'no model here' >&2; exit 7"})
	rep, err := l.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after := testenv.RepoState(t, env.repo); after != before {
		t.Errorf("the loop changed the repository:\nbefore %s\nafter %s", before, after)
	}

	byName := map[string]Step{}
	for _, s := range rep.Candidates {
		byName[s.Candidate] = s
	}
	first, repair, refine := byName["example-r1-1"], byName["example-r2-1"], byName["example-r3-1"]
	if first.Mode != ModeGenerate || first.Verdict != "failed" || first.Failure == nil || first.Failure.Kind != evaluator.FailTest {
		t.Errorf("round 1: %+v; want a generated candidate that fails its tests", first)
	}
	if repair.Mode != ModeRepair || repair.Parent != "example-r1-1" || !faster(evaluator.Verdict(repair.Verdict)) {
		t.Errorf("round 2: %+v; want a faster repair of example-r1-1", repair)
	}
	if refine.Mode != ModeRefine || refine.Parent != "example-r2-1" {
		t.Errorf("round 3: %+v; want a refinement of example-r2-1", refine)
	}
	if rep.Winner == "" || rep.Remeasure == nil || !rep.Remeasure.Confirmed || rep.Remeasure.Job == "" {
		t.Fatalf("winner %q, re-measure %+v; want a winner confirmed by a second job", rep.Winner, rep.Remeasure)
	}
	if len(rep.Lineage) < 2 || rep.Lineage[0].Candidate != "example-r1-1" || rep.Lineage[1].Mode != ModeRepair {
		t.Errorf("lineage of the winner: %+v; want it to start with the failed rewrite and its repair", rep.Lineage)
	}

	calls, err := env.db.GeneratorCalls(ctx, rep.Run)
	if err != nil {
		t.Fatal(err)
	}
	modes := map[string]int{}
	for _, c := range calls {
		modes[c.Generator+"/"+c.Mode]++
		if c.Generator == "broken" && (c.ExitCode != 7 || !strings.Contains(c.Stderr, "no model here") || c.Error == "") {
			t.Errorf("the broken generator's call is recorded as %+v", c)
		}
		var req Request
		if err := json.Unmarshal(c.Request, &req); err != nil || req.Schema != Schema {
			t.Errorf("call %+v: request %q does not read back: %v", c, c.Request, err)
		}
		if c.Mode == ModeRepair && (req.Parent == nil || req.Parent.Failure == nil || req.Parent.Failure.Kind != evaluator.FailTest) {
			t.Errorf("the repair request does not carry the parent's failure: %s", c.Request)
		}
		if c.Mode == ModeRefine && (req.Parent == nil || req.Parent.Speedup <= 1) {
			t.Errorf("the refine request does not carry the parent's speedup: %s", c.Request)
		}
	}
	if modes["example/generate"] != 1 || modes["example/repair"] != 1 || modes["example/refine"] != 1 || modes["broken/generate"] != 1 {
		t.Errorf("calls by generator and mode: %v", modes)
	}
	lin, err := env.db.LineageOf(ctx, rep.Run)
	if err != nil {
		t.Fatal(err)
	}
	if len(lin) != len(rep.Candidates) {
		t.Errorf("%d lineage rows for %d candidates", len(lin), len(rep.Candidates))
	}
	for _, l := range lin {
		if l.Candidate == "example-r2-1" && (l.Parent != "example-r1-1" || l.Round != 2 || l.JobID == "" || l.Generator != "example") {
			t.Errorf("lineage row %+v", l)
		}
	}
	var ex *GeneratorStats
	for _, s := range rep.Generators {
		if s.Name == "example" {
			ex = s
		}
	}
	if ex == nil || ex.Calls != 3 || ex.Candidates != 3 || ex.Applied != 3 || ex.Compiled != 3 || ex.Passed != 2 || ex.Faster < 1 {
		t.Errorf("example's counts: %+v", ex)
	}
}

// TestLoop_EditInPlace: an edit-in-place generator edits files in a slot
// of its own; what it leaves there is the candidate, and the user's
// repository never sees it.
func TestLoop_EditInPlace(t *testing.T) {
	testenv.Once(t)
	ctx := context.Background()
	env := newLoopEnv(t)
	before := testenv.RepoState(t, env.repo)
	script := filepath.Join(t.TempDir(), "edit.sh")
	body := "set -e\ntest -f sumsq/sumsq.go\ncase \"$PWD\" in \"" + env.repo + "\") echo 'ran in the repository' >&2; exit 1;; esac\n" +
		"printf 'package sumsq\\n\\nfunc SumSquares(xs []int) int {\\n\\tt := 0\\n\\tfor _, x := range xs {\\n\\t\\tt += x * x\\n\\t}\\n\\treturn t\\n}\\n' > sumsq/sumsq.go\n" +
		"echo notes > NOTES.txt\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	l := env.loop(t, Generator{Name: "agent", Command: "sh " + script, Edit: true})
	l.Rounds = 1
	l.Spec.Bench = "none"
	rep, err := l.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Candidates) != 1 || rep.Candidates[0].Verdict != string(evaluator.VerdictPassed) {
		t.Fatalf("candidates %+v; want one that passed", rep.Candidates)
	}
	if after := testenv.RepoState(t, env.repo); after != before {
		t.Errorf("the edit-in-place generator changed the repository:\nbefore %s\nafter %s", before, after)
	}
}

// TestResolveTargets_OtherLanguage: path:name on a file that is not Go
// source targets the whole file.
func TestResolveTargets_OtherLanguage(t *testing.T) {
	repo, base := newTestRepo(t)
	got, err := ResolveTargets(context.Background(), repo, base, []string{"go.mod:the module"})
	if err != nil {
		t.Fatal(err)
	}
	if g := got[0]; g.Name != "the module" || g.File != "go.mod" || !strings.Contains(g.Source, "module example.com/fixture") {
		t.Errorf("got %+v", g)
	}
}

// TestHotTargets profiles the fixture's benchmarks: the hottest function
// of the repository is SumSquares, with its share, the profile's top
// functions and its lines; ProfileTargets gives a named target the same.
func TestHotTargets(t *testing.T) {
	testenv.Once(t)
	ctx := context.Background()
	repo, base := newTestRepo(t)
	hot, err := HotTargets(ctx, repo, base, repo, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(hot) != 1 || hot[0].Name != "sumsq.SumSquares" || hot[0].File != "sumsq/sumsq.go" {
		t.Fatalf("hot targets %+v, want sumsq.SumSquares", hot)
	}
	p := hot[0].Profile
	if p == nil || p.Share < 0.5 || len(p.Top) == 0 || len(p.Lines) == 0 {
		t.Fatalf("profile %+v; want most of the samples, the top functions and per-line costs", p)
	}
	var cum float64
	for _, l := range p.Lines {
		if l.Line < hot[0].Line || l.Line > hot[0].EndLine {
			t.Errorf("line %d is outside the function (%d-%d)", l.Line, hot[0].Line, hot[0].EndLine)
		}
		cum = max(cum, l.Cum)
	}
	if cum < 0.1 {
		t.Errorf("no line of SumSquares holds 10%% of the samples with what it calls: %+v", p.Lines)
	}
	named, err := ResolveTargets(ctx, repo, base, []string{"sumsq.SumSquares"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ProfileTargets(ctx, repo, base, repo, "", named)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Profile == nil || got[0].Profile.Share < 0.5 || named[0].Profile != nil {
		t.Errorf("ProfileTargets: %+v (and the input's profile %+v, which must stay nil)", got[0].Profile, named[0].Profile)
	}
}
