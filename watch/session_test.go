package watch

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/store"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// TestSession_Run drives a session as the CLI and the daemon do: a dirty
// tree is evaluated at start, a save is evaluated again, and cancelling
// stops Run with nil. The test command sees the saved content (a bad save
// fails), and the user's repository (its status, index, refs and stash) is
// as the user left it.
func TestSession_Run(t *testing.T) {
	repo := newTestRepo(t, map[string]string{"a.txt": "1\n", "test.sh": "grep -qv bad a.txt\n"})
	head := strings.TrimSpace(git(t, repo, "rev-parse", "HEAD"))
	writeFile(t, repo, "a.txt", "2\n") // dirty before the session starts
	userState := func() string {
		return git(t, repo, "status", "--porcelain") + git(t, repo, "for-each-ref") + git(t, repo, "stash", "list") +
			git(t, repo, "ls-files", "-s")
	}
	before := userState()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "optimizer.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	slots := filepath.Join(t.TempDir(), "slots")
	pool, err := worktreepool.Open(ctx, worktreepool.Options{Repo: repo, Base: head, Size: 1, Dir: slots,
		MachineLock: filepath.Join(t.TempDir(), "machine.lock")})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close(context.WithoutCancel(ctx))

	records := make(chan Record, 16)
	s := &Session{
		Root: repo, Head: head, Skip: []string{slots}, Pool: pool, DB: db,
		Options: func(j Job) (evaluator.Options, error) {
			return evaluator.Options{Kind: "watch", Repo: repo, Base: j.Head, Candidates: j.Cands,
				Test: j.Test, Bench: "none", Timeout: time.Minute, Sandbox: evaluator.SandboxOff}, nil
		},
		Test:  "sh test.sh",
		Quiet: 50 * time.Millisecond,
		Out:   func(r Record) { records <- r },
	}
	errc := make(chan error, 1)
	go func() { errc <- s.Run(ctx) }()

	next := func() Record {
		t.Helper()
		select {
		case r := <-records:
			return r
		case err := <-errc:
			t.Fatalf("Run returned early: %v", err)
		case <-time.After(2 * time.Minute):
			t.Fatal("no record in 2 minutes")
		}
		return Record{}
	}
	first := next()
	if first.State != "finished" || first.CandidateResult == nil || first.Name != TreeCandidate ||
		first.Verdict != evaluator.VerdictPassed || first.Job == "" {
		t.Fatalf("first record = %+v, want the dirty tree passed", first)
	}
	if !strings.HasPrefix(first.Line(), first.Subject+": tests pass") || !strings.Contains(first.Subject, "a.txt") {
		t.Errorf("first line = %q, want its subject naming a.txt, then the verdict", first.Line())
	}

	writeFile(t, repo, "a.txt", "bad\n")
	second := next()
	if second.State != "finished" || second.CandidateResult == nil || second.Verdict != evaluator.VerdictFailed ||
		len(second.Trigger) != 1 || second.Trigger[0] != "a.txt" {
		t.Fatalf("second record = %+v, want the save of a.txt failed", second)
	}

	cancel()
	if err := <-errc; err != nil {
		t.Errorf("Run after cancel = %v, want nil", err)
	}
	writeFile(t, repo, "a.txt", "2\n")
	if after := userState(); after != before {
		t.Errorf("the user's repository changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// TestSession_PlanTreeUnchanged: a save that leaves the tree's snapshot as
// it was last planned plans nothing. A save that changes it plans the tree
// again, and saving the first content back is new work once more.
func TestSession_PlanTreeUnchanged(t *testing.T) {
	repo := newTestRepo(t, map[string]string{"a.txt": "1\n"})
	head := strings.TrimSpace(git(t, repo, "rev-parse", "HEAD"))
	s := &Session{Root: repo, Head: head}
	st := &state{head: head, last: map[string]string{}}
	ctx := context.Background()
	plan := func(content string) *Work {
		t.Helper()
		writeFile(t, repo, "a.txt", content)
		return s.planTree(ctx, st, Change{Paths: []string{"a.txt"}, Time: time.Now()}, false)
	}
	if w := plan("good\n"); w == nil || w.skip != "" || len(w.cands) != 1 {
		t.Fatalf("first save planned %+v, want the tree as one candidate", w)
	}
	if w := plan("good\n"); w != nil {
		t.Fatalf("the same bytes again planned %+v, want nothing", w)
	}
	if w := plan("bad\n"); w == nil || len(w.cands) != 1 {
		t.Fatalf("a changed save planned %+v, want the tree", w)
	}
	if w := plan("good\n"); w == nil || len(w.cands) != 1 {
		t.Fatalf("the first content saved back planned %+v, want the tree again", w)
	}
}

// TestSession_Tick: while an evaluation is in flight, Tick is called about
// every TickEvery with its work. So a status line can count its ETA down
// between events. Once the evaluation has ended, Tick is not called again.
func TestSession_Tick(t *testing.T) {
	repo := newTestRepo(t, map[string]string{"a.txt": "1\n"})
	head := strings.TrimSpace(git(t, repo, "rev-parse", "HEAD"))
	writeFile(t, repo, "a.txt", "2\n") // dirty: evaluated at start

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ticks := make(chan *Work, 100)
	started := make(chan *Work, 1)
	release := make(chan struct{})
	records := make(chan Record, 4)
	s := &Session{
		Root: repo, Head: head,
		Evaluate: func(ctx context.Context, j Job) (*evaluator.Report, error) {
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &evaluator.Report{State: "finished", Candidates: []evaluator.CandidateResult{
				{Name: j.Cands[0].Name, Verdict: evaluator.VerdictPassed}}}, nil
		},
		Test:    "true",
		Quiet:   50 * time.Millisecond,
		Out:     func(r Record) { records <- r },
		Started: func(w *Work) { started <- w },
		Tick:    func(w *Work) { ticks <- w },
	}
	errc := make(chan error, 1)
	go func() { errc <- s.Run(ctx) }()

	var w *Work
	select {
	case w = <-started:
	case err := <-errc:
		t.Fatalf("Run returned early: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("no evaluation started in a minute")
	}
	for i := range 2 {
		select {
		case got := <-ticks:
			if got != w {
				t.Errorf("tick %d for %p, want the work in flight %p", i, got, w)
			}
		case <-time.After(10 * TickEvery):
			t.Fatalf("tick %d: none in %s while an evaluation was in flight", i, 10*TickEvery)
		}
	}
	close(release)
	select {
	case r := <-records:
		if r.Verdict != evaluator.VerdictPassed {
			t.Errorf("record %+v, want the tree passed", r)
		}
	case <-time.After(time.Minute):
		t.Fatal("no record in a minute")
	}
	for len(ticks) > 0 { // those sent before the record
		<-ticks
	}
	select {
	case got := <-ticks:
		t.Errorf("a tick for %+v with nothing in flight", got)
	case <-time.After(3 * TickEvery):
	}
	cancel()
	if err := <-errc; err != nil {
		t.Errorf("Run after cancel = %v, want nil", err)
	}
}
