package evaluator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/result"
	"github.com/optimizer-dev/optimizer/stats"
	"github.com/optimizer-dev/optimizer/store"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// newTestRepo makes a git repo holding files, committed, and returns its root
// and the commit.
func newTestRepo(tb testing.TB, files map[string]string) (string, string) {
	tb.Helper()
	dir := tb.TempDir()
	for p, s := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	git(tb, dir, "init", "-q", "-b", "main")
	git(tb, dir, "add", "-A")
	git(tb, dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base")
	return dir, strings.TrimSpace(git(tb, dir, "rev-parse", "HEAD"))
}

func git(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// shellRepo is a language-neutral fixture: the test checks a file, the
// benchmark sleeps for as long as another file says.
var shellRepo = map[string]string{
	"speed":    "0.08\n",
	"ok":       "yes\n",
	"test.sh":  "if [ -f hang ]; then sleep 100; fi\ntest \"$(cat ok)\" = yes\n",
	"bench.sh": "sleep $(cat speed)\n",
}

func filesCand(name string, files map[string]string) candidate.Candidate {
	c := candidate.Candidate{Name: name, Source: "test", Files: map[string][]byte{}}
	for p, s := range files {
		c.Files[p] = []byte(s)
	}
	return c
}

// shellCandidates shows every verdict that needs no Go toolchain.
func shellCandidates() []candidate.Candidate {
	return []candidate.Candidate{
		filesCand("fast", map[string]string{"speed": "0.016\n"}),
		filesCand("slower", map[string]string{"speed": "0.4\n"}),
		filesCand("broken", map[string]string{"ok": "no\n"}),
		filesCand("hang", map[string]string{"hang": "1\n"}),
		filesCand("same", map[string]string{"speed": "0.08\n"}),
		filesCand("fast-again", map[string]string{"speed": "0.016\n"}),
		{Name: "bad-patch", Source: "test", Patch: []byte("--- a/nope\n+++ b/nope\n@@ -1 +1 @@\n-x\n+y\n")},
		filesCand("also-fast", map[string]string{"speed": "0.016\n", "note": "x\n"}),
	}
}

var shellWant = map[string]Verdict{
	"fast":       VerdictWinner,
	"slower":     VerdictSlower,
	"broken":     VerdictFailed,
	"hang":       VerdictFailed,
	"same":       VerdictDuplicate,
	"fast-again": VerdictDuplicate,
	"bad-patch":  VerdictFailed,
	"also-fast":  VerdictFaster,
}

type harness struct {
	repo, base string
	db         *store.DB
}

func newHarness(t *testing.T, files map[string]string) *harness {
	t.Helper()
	repo, base := newTestRepo(t, files)
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "optimizer.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &harness{repo: repo, base: base, db: db}
}

// run opens a pool of n slots, runs a job and closes the pool.
func (h *harness) run(t *testing.T, ctx context.Context, n int, opts Options) (*Report, error) {
	t.Helper()
	return h.runWithIDs(t, ctx, n, opts, candidate.TreeID)
}

// runWithIDs is run with the job's content ids computed by treeID.
func (h *harness) runWithIDs(t *testing.T, ctx context.Context, n int, opts Options, treeID treeIDFunc) (rep *Report, err error) {
	t.Helper()
	h.withPool(t, ctx, n, func(pool *worktreepool.Pool) {
		opts.Repo, opts.Base = h.repo, h.base
		rep, err = run(ctx, pool, h.db, opts, treeID)
	})
	return rep, err
}

// withPool opens a pool of n slots at h's base, calls f with it and closes
// it, checking that f left no slot in use.
func (h *harness) withPool(t *testing.T, ctx context.Context, n int, f func(*worktreepool.Pool)) {
	t.Helper()
	pool, err := worktreepool.Open(ctx, worktreepool.Options{Repo: h.repo, Base: h.base, Size: n, Dir: filepath.Join(t.TempDir(), "slots"),
		MachineLock: filepath.Join(t.TempDir(), "machine.lock")})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := pool.Close(context.Background()); err != nil {
			t.Errorf("close pool: %v", err)
		}
		if st := pool.Stats(); st.InUse != 0 {
			t.Errorf("pool stats after the job: %+v, want no slot in use", st)
		}
	}()
	f(pool)
}

func shellOptions() Options {
	return Options{
		Candidates: shellCandidates(),
		Test:       "sh test.sh",
		Bench:      "sh bench.sh",
		Timeout:    2 * time.Second,
		Metric:     MetricWall,
	}
}

func verdicts(rep *Report) map[string]Verdict {
	out := map[string]Verdict{}
	for _, c := range rep.Candidates {
		out[c.Name] = c.Verdict
	}
	return out
}

// TestRun_VerdictsAtEveryParallelism checks that one candidate set gets the
// same verdicts at -j 1, 2, 4 and 8, and that results come in input order.
// The benchmarks are sleeps, timed by the wall clock. So a burst of load on
// the machine can leave fast or also-fast not settled after the most pairs.
// CI runs the long tests of every package at once on 2 CPUs. Not settling
// is an honest answer, since the tool would not tell them apart from the
// base then. Such a job runs once more; a settled wrong verdict fails at
// once.
func TestRun_VerdictsAtEveryParallelism(t *testing.T) {
	testenv.Long(t)
	for _, n := range []int{1, 2, 4, 8} {
		t.Run("j"+string(rune('0'+n)), func(t *testing.T) {
			for try := 1; ; try++ {
				h := newHarness(t, shellRepo)
				rep, err := h.run(t, context.Background(), n, shellOptions())
				if err != nil {
					t.Fatal(err)
				}
				problems, unsettled := checkShellVerdicts(rep)
				if len(problems) > 0 && unsettled && try == 1 {
					t.Logf("try %d: only unsettled fast candidates were wrong, running again:\n%s", try, strings.Join(problems, "\n"))
					continue
				}
				for _, p := range problems {
					t.Error(p)
				}
				return
			}
		})
	}
}

// checkShellVerdicts compares a report on shellCandidates with what each
// should get. unsettled says whether every wrong verdict was fast's or
// also-fast's, ended not settled.
func checkShellVerdicts(rep *Report) (problems []string, unsettled bool) {
	unsettled = true
	wrong := func(c CandidateResult, format string, args ...any) {
		problems = append(problems, fmt.Sprintf(format, args...))
		if !(c.Unsettled && (c.Name == "fast" || c.Name == "also-fast")) {
			unsettled = false
		}
	}
	byName := map[string]CandidateResult{}
	for _, c := range rep.Candidates {
		byName[c.Name] = c
	}
	// fast and also-fast sleep alike; also-fast's diff is larger. Their
	// intervals overlap unless the machine's load changed between their
	// measurements (a sleep's ratio to base shifts with scheduling delay),
	// and then the rule picks the larger speedup.
	// One of them left unsettled and not faster leaves the other to win.
	fast, also := byName["fast"], byName["also-fast"]
	lost := func(c CandidateResult) bool {
		return c.Unsettled && c.Verdict != VerdictWinner && c.Verdict != VerdictFaster
	}
	wantWinner := "fast"
	switch {
	case lost(fast) && lost(also):
		wantWinner = ""
	case lost(fast):
		wantWinner = "also-fast"
	case lost(also):
	case fast.CI != nil && also.CI != nil && also.Speedup > fast.Speedup && fast.CI[1] < also.CI[0]:
		wantWinner = "also-fast"
	}
	for i, c := range rep.Candidates {
		if c.Name != shellCandidates()[i].Name {
			wrong(c, "candidate %d is %s, want input order", i, c.Name)
		}
		want := shellWant[c.Name]
		switch {
		case c.Name == wantWinner:
			want = VerdictWinner
		case c.Name == "fast" || c.Name == "also-fast":
			want = VerdictFaster
		}
		if c.Verdict != want {
			wrong(c, "%s: verdict %s, want %s (failure %+v, note %q, speedup %.2f ci %v)",
				c.Name, c.Verdict, want, c.Failure, c.Note, c.Speedup, c.CI)
		}
	}
	got := ""
	if rep.Winner != nil {
		got = *rep.Winner
	}
	if got != wantWinner {
		wrong(CandidateResult{Name: got}, "winner %q, want %q", got, wantWinner)
	}
	if f := byName["hang"].Failure; f == nil || f.Kind != FailTimeout {
		wrong(byName["hang"], "hang failure = %+v, want kind timeout", f)
	}
	if f := byName["broken"].Failure; f == nil || f.Kind != FailTest {
		wrong(byName["broken"], "broken failure = %+v, want kind test", f)
	}
	if f := byName["bad-patch"].Failure; f == nil || f.Kind != FailApply {
		wrong(byName["bad-patch"], "bad-patch failure = %+v, want kind apply", f)
	}
	if d := byName["fast-again"].DuplicateOf; d != "fast" {
		wrong(byName["fast-again"], "fast-again duplicate of %q, want fast", d)
	}
	if d := byName["same"].DuplicateOf; d != "base" {
		wrong(byName["same"], "same duplicate of %q, want base", d)
	}
	if p := fast.Pairs; p < DefaultMinPairs {
		wrong(fast, "fast measured with %d pairs, want at least %d", p, DefaultMinPairs)
	}
	return problems, unsettled
}

// TestRun_ManyPassingSmallPool is the regression test for a deadlock that
// codeflash's parallel evaluator shipped with: more passing candidates than
// slots must finish.
func TestRun_ManyPassingSmallPool(t *testing.T) {
	h := newHarness(t, shellRepo)
	var cands []candidate.Candidate
	for i := range 6 {
		cands = append(cands, filesCand("c"+string(rune('a'+i)), map[string]string{"note": strings.Repeat("x", i+1)}))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := h.run(t, ctx, 2, Options{Candidates: cands, Test: "sh test.sh", Bench: "none"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Candidates {
		if c.Verdict != VerdictPassed {
			t.Errorf("%s: %s, want passed", c.Name, c.Verdict)
		}
	}
}

// listen returns a channel for Options.Events that keeps the events of
// kind, and the function that, once the job has returned, closes it and
// gives them.
func listen(kind EventKind) (chan Event, func() []Event) {
	events := make(chan Event)
	var kept []Event
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e := range events {
			if e.Kind == kind {
				kept = append(kept, e)
			}
		}
	}()
	return events, func() []Event {
		close(events)
		<-done
		return kept
	}
}

// TestRun_Store checks that the job, its candidates and every raw sample are
// in the store, so that a report can be recomputed.
func TestRun_Store(t *testing.T) {
	h := newHarness(t, shellRepo)
	opts := shellOptions()
	opts.Candidates = opts.Candidates[:3]
	opts.MaxPairs = 12 // enough to store pairs; at load 25 the default cap made this test take 101 s
	var kept func() []Event
	opts.Events, kept = listen(EventSample)
	rep, err := h.run(t, context.Background(), 2, opts)
	pairEvents := kept()
	if err != nil {
		t.Fatal(err)
	}
	// Each pair's event says what the pairs so far are on course to take
	// (the ETA reads it). One pair says nothing. From two, it is a look
	// from the pairs so far on, no earlier than the first claim, at most
	// the cap.
	first := stats.Sequential{MinPairs: DefaultMinPairs, MaxPairs: 12, MinSpeedup: DefaultMinSpeedup}.FirstClaim()
	pair := map[string]int{}
	for _, e := range pairEvents {
		pair[e.Candidate]++
		n := pair[e.Candidate]
		if e.Pair != n {
			t.Errorf("%s's pair %d says it is pair %d", e.Candidate, n, e.Pair)
		}
		switch {
		case n == 1 && e.Forecast != 0:
			t.Errorf("%s pair 1: forecast %d, want 0", e.Candidate, e.Forecast)
		case n >= 2 && (e.Forecast < n || e.Forecast < first || e.Forecast > 12):
			t.Errorf("%s pair %d: forecast %d, want in [%d, 12] and at least %d", e.Candidate, n, e.Forecast, n, first)
		}
	}
	if pair["fast"] == 0 {
		t.Errorf("no pair event for fast among %d", len(pairEvents))
	}
	ctx := context.Background()
	job, err := h.db.Job(ctx, rep.Job)
	if err != nil {
		t.Fatal(err)
	}
	// The winner column says what the report says. Which candidate wins is
	// not this test's point: under a busy machine's load (20 on 2 CPUs) fast
	// has ended not-faster.
	winner := ""
	if rep.Winner != nil {
		winner = *rep.Winner
	}
	if job.State != "finished" || job.Winner != winner || len(job.Report) == 0 {
		t.Errorf("job row = state %q winner %q report %d bytes; the report's winner is %q", job.State, job.Winner, len(job.Report), winner)
	}
	rows, err := h.db.Candidates(ctx, rep.Job)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("%d candidate rows, want 3", len(rows))
	}
	for i, r := range rows {
		if r.Verdict != string(rep.Candidates[i].Verdict) {
			t.Errorf("row %s verdict %q, report says %q", r.Name, r.Verdict, rep.Candidates[i].Verdict)
		}
	}
	samples, err := h.db.BenchSamples(ctx, rep.Job, "fast")
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 * rep.Candidates[0].Pairs; len(samples) != want {
		t.Errorf("%d samples for fast, want %d (2 per pair)", len(samples), want)
	}
}

// TestRun_Cancel cancels a job as its first tests start: it returns, marks
// the job interrupted, and every slot comes back.
func TestRun_Cancel(t *testing.T) {
	h := newHarness(t, shellRepo)
	opts := shellOptions()
	opts.Timeout = time.Minute
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := make(chan Event)
	opts.Events = events
	go func() {
		for e := range events {
			if e.Kind == EventStart {
				cancel() // the job is recorded and tests are running
			}
		}
	}()
	rep, err := h.run(t, ctx, 2, opts)
	close(events)
	if err == nil {
		t.Fatal("Run after cancel returned no error")
	}
	if rep == nil || rep.State != "interrupted" {
		t.Fatalf("report %+v, want state interrupted", rep)
	}
	job, err := h.db.Job(context.Background(), rep.Job)
	if err != nil {
		t.Fatal(err)
	}
	if job.State != "interrupted" {
		t.Errorf("stored state %q, want interrupted", job.State)
	}
}

// A candidate runs as soon as its own content id and those before it are
// known. Here the last candidate's id is held back until the first
// candidate's verdict is in. That would never come if phase 1 waited for
// every id.
func TestRun_TestsStartWhileResolving(t *testing.T) {
	h := newHarness(t, shellRepo)
	firstDone := make(chan struct{})
	events := make(chan Event)
	go func() {
		for e := range events {
			if e.Kind == EventDone && e.Candidate == "first" {
				close(firstDone)
			}
		}
	}()
	opts := Options{
		Candidates: []candidate.Candidate{
			filesCand("first", map[string]string{"a": "1\n"}),
			filesCand("second", map[string]string{"a": "2\n"}),
			filesCand("last", map[string]string{"a": "3\n"}),
		},
		Test:    "true",
		Bench:   "none",
		Timeout: time.Minute,
		Events:  events,
	}
	holdLast := func(ctx context.Context, repo, base string, c candidate.Candidate) (string, error) {
		if c.Name == "last" {
			select {
			case <-firstDone:
			case <-time.After(30 * time.Second):
				return "", errors.New("held back 30s: the first candidate had no verdict yet")
			}
		}
		return candidate.TreeID(ctx, repo, base, c)
	}
	rep, err := h.runWithIDs(t, context.Background(), 2, opts, holdLast)
	close(events)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Candidates {
		if c.Verdict != VerdictPassed {
			t.Errorf("%s: verdict %s (%+v), want passed", c.Name, c.Verdict, c.Failure)
		}
	}
}

// TestRun_CancelBeforeBenchmark: a job stopped after a candidate's tests
// passed and before its benchmark says so. It says it in its report and in
// the store (what optimizer show reads), rather than give a verdict that
// sounds final.
func TestRun_CancelBeforeBenchmark(t *testing.T) {
	h := newHarness(t, shellRepo)
	opts := shellOptions()
	opts.Candidates = opts.Candidates[:1] // fast
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := make(chan Event)
	opts.Events = events
	go func() {
		for e := range events {
			if e.Kind == EventTested {
				cancel() // its tests pass; its benchmark is to come
			}
		}
	}()
	rep, err := h.run(t, ctx, 1, opts)
	close(events)
	if err == nil || rep == nil {
		t.Fatalf("Run after cancel: %v, %+v", err, rep)
	}
	stored, err := h.db.Job(context.Background(), rep.Job)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := JobReport(context.Background(), h.db, stored)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*Report{rep, loaded} {
		c := r.Candidates[0]
		if c.Verdict != VerdictPassed || c.Live == nil || c.Live.Stage != result.StageBenchQueue {
			t.Errorf("fast: verdict %s, live %+v; want passed, its benchmark still to run", c.Verdict, c.Live)
		}
	}
}
