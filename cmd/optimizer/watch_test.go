package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/cmd/optimizer/internal/config"
	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/store"
	"github.com/optimizer-dev/optimizer/testdata"
	"github.com/optimizer-dev/optimizer/watch"
)

// watchWait bounds every wait in these tests. It is generous: they assert
// what happens, never how fast, on a noisy two-core machine.
const watchWait = 3 * time.Minute

// watchTestScript fails when a.txt holds "bad", printing where, and sleeps when
// it holds "slow", after writing its PID to the file named by $1 (if any).
const watchTestScript = `#!/bin/sh
if grep -q bad a.txt; then echo "a.txt:1: bad value"; exit 1; fi
if grep -q slow a.txt; then
	[ -n "$1" ] && echo $$ > "$1.tmp" && mv "$1.tmp" "$1"
	exec sleep 120
fi
exit 0
`

// newWatchRepo makes a committed repo whose tests are test.sh.
func newWatchRepo(tb testing.TB) string {
	tb.Helper()
	repo := filepath.Join(tb.TempDir(), "repo")
	writeWatchFiles(tb, repo, map[string]string{"a.txt": "base\n", "b.txt": "b\n", "test.sh": watchTestScript})
	if _, err := testdata.InitRepo(context.Background(), repo); err != nil {
		tb.Fatal(err)
	}
	return repo
}

func writeWatchFiles(tb testing.TB, dir string, files map[string]string) {
	tb.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// shellWatch is the options of a watch over a shell repo: test, no
// benchmark, a quick debounce, JSON lines, and a machine lock of its own.
func shellWatch(tb testing.TB, repo string, test string) watchOptions {
	o := watchOptions{runOptions: defaultRunOptions(), Quiet: 200 * time.Millisecond, MaxWait: time.Minute,
		machineLock: filepath.Join(tb.TempDir(), "machine.lock")}
	o.Kind = "watch"
	o.Repo = repo
	o.Test = test
	o.Bench = "none"
	o.Format = config.FormatJSON
	o.Verbose = os.Getenv("WATCH_VERBOSE") != ""
	// The tests signal through files outside the slot (a test's PID), which
	// a sandbox hides; the sandbox has its own tests (sandbox_test.go).
	o.Sandbox = "off"
	return o
}

// watching is a watch running in the background of a test.
type watching struct {
	t      *testing.T
	cancel context.CancelFunc
	done   chan error
	stdout syncBuffer
	stderr syncBuffer
	read   int // lines of stdout consumed by next
	err    error
	ended  bool
}

// startWatch runs runWatch until the test calls stop or ends, and returns
// once the watcher is watching.
func startWatch(t *testing.T, o watchOptions) *watching {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w := &watching{t: t, cancel: cancel, done: make(chan error, 1)}
	go func() { w.done <- runWatch(ctx, o, &w.stdout, &w.stderr) }()
	t.Cleanup(func() { w.stop() })
	w.until(func() bool { return strings.Contains(w.stderr.String(), "watching") }, "the watch to start")
	return w
}

// until polls cond until it holds, failing the test after watchWait or if
// the watch ended.
func (w *watching) until(cond func() bool, what string) {
	w.t.Helper()
	deadline := time.Now().Add(watchWait)
	for !cond() {
		select {
		case err := <-w.done:
			w.ended, w.err = true, err
			if cond() {
				return
			}
			w.t.Fatalf("the watch ended (%v) before %s\nstdout:\n%s\nstderr:\n%s", err, what, w.stdout.String(), w.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("no %s within %s\nstdout:\n%s\nstderr:\n%s", what, watchWait, w.stdout.String(), w.stderr.String())
		}
	}
}

// next returns the next line of stdout.
func (w *watching) next() string {
	w.t.Helper()
	w.until(func() bool { return len(w.stdout.lines()) > w.read }, fmt.Sprintf("line %d of output", w.read+1))
	w.read++
	return w.stdout.lines()[w.read-1]
}

// record returns the next line of stdout as a JSON record.
func (w *watching) record() watch.Record {
	w.t.Helper()
	line := w.next()
	var r watch.Record
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		w.t.Fatalf("line %d is not a JSON record: %v\n%s", w.read, err, line)
	}
	return r
}

// stop cancels the watch as Ctrl-C does and returns what it returned.
func (w *watching) stop() error {
	w.t.Helper()
	w.cancel()
	if !w.ended {
		select {
		case w.err = <-w.done:
			w.ended = true
		case <-time.After(watchWait):
			w.t.Fatalf("the watch did not stop within %s", watchWait)
		}
	}
	return w.err
}

// syncBuffer is a bytes.Buffer that the watch writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// lines returns the complete lines written so far.
func (s *syncBuffer) lines() []string {
	str := s.String()
	if i := strings.LastIndexByte(str, '\n'); i >= 0 {
		return strings.Split(str[:i], "\n")
	}
	return nil
}

// watchJobs returns the jobs in the store at path, oldest first.
func watchJobs(t *testing.T, path string) []store.Job {
	t.Helper()
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	jobs, err := db.Jobs(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(jobs)
	return jobs
}

func watchStorePath(t *testing.T, repo string) string {
	t.Helper()
	r, err := gitcmd.FindRepo(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	return r.StorePath("")
}

// TestWatch_Saves: a repo with work in every place git keeps it is
// evaluated at start, and each save is evaluated, as a line of text.
// Nothing of the user's is changed: not the files, the index, HEAD, refs,
// the stash, nor git's worktree list.
func TestWatch_Saves(t *testing.T) {
	repo := newWatchRepo(t)
	git(t, repo, "branch", "feature")
	writeWatchFiles(t, repo, map[string]string{"b.txt": "stashed\n"})
	git(t, repo, "stash", "push", "-q", "-m", "stashed work")
	writeWatchFiles(t, repo, map[string]string{"staged.txt": "staged\n"})
	git(t, repo, "add", "staged.txt")
	writeWatchFiles(t, repo, map[string]string{"untracked.txt": "untracked\n", "b.txt": "edited\n"})
	before := snapshot(t, repo)

	o := shellWatch(t, repo, "sh test.sh")
	o.Format = config.FormatText
	w := startWatch(t, o)
	line := regexp.MustCompile(`^\d\d:\d\d:\d\d (.+?): (.*)$`)
	expect := func(trigger, summary string) {
		t.Helper()
		l := w.next()
		m := line.FindStringSubmatch(l)
		if m == nil || m[1] != trigger || !regexp.MustCompile(summary).MatchString(m[2]) {
			t.Fatalf("line %q, want %q: %q", l, trigger, summary)
		}
	}
	// At start: the tree's difference from HEAD, untracked and staged files too.
	expect("b.txt, staged.txt, untracked.txt", `^tests pass · \d`)

	writeWatchFiles(t, repo, map[string]string{"a.txt": "good\n"})
	expect("a.txt", `^tests pass · \d`)

	// A save of the same bytes plans nothing: watch's
	// TestSession_PlanTreeUnchanged proves it without waiting on a clock.
	writeWatchFiles(t, repo, map[string]string{"a.txt": "bad\n"})
	expect("a.txt", `^FAIL the test command exits 1 where base exits 0 \(a\.txt:1\)$`)

	writeWatchFiles(t, repo, map[string]string{"a.txt": "base\n"})
	expect("a.txt", `^tests pass · \d`)

	if err := w.stop(); err != nil {
		t.Fatalf("watch returned %v after cancellation, want nil", err)
	}
	if diff := before.diff(snapshot(t, repo)); diff != "" {
		t.Fatalf("the repo changed:\n%s", diff)
	}
	jobs := watchJobs(t, watchStorePath(t, repo))
	if len(jobs) != 4 {
		t.Fatalf("%d jobs in the store, want 4", len(jobs))
	}
	for _, j := range jobs {
		if j.Kind != "watch" || j.State != "finished" {
			t.Errorf("job %s: kind %s, state %s; want watch, finished", j.ID, j.Kind, j.State)
		}
	}
}

// TestWatch_Burst: a burst of saves to many files is one evaluation.
func TestWatch_Burst(t *testing.T) {
	repo := newWatchRepo(t)
	o := shellWatch(t, repo, "sh test.sh")
	o.DB = filepath.Join(t.TempDir(), "store.db")
	o.Quiet = 3 * time.Second // long beside the burst, so a busy machine cannot split it
	w := startWatch(t, o)
	var want []string
	for i := range 20 {
		name := fmt.Sprintf("burst/f%02d.txt", i)
		want = append(want, name)
		for j := range 3 {
			writeWatchFiles(t, repo, map[string]string{name: fmt.Sprintf("save %d\n", j)})
		}
	}
	r := w.record()
	if r.State != "finished" || !slices.Equal(r.Trigger, want) {
		t.Fatalf("record %+v, want finished, triggered by the 20 files", r)
	}
	writeWatchFiles(t, repo, map[string]string{"a.txt": "good\n"})
	if r := w.record(); !slices.Equal(r.Trigger, []string{"a.txt"}) {
		t.Fatalf("next record %+v, want one triggered by a.txt", r)
	}
	w.stop()
	if jobs := watchJobs(t, o.DB); len(jobs) != 2 {
		t.Fatalf("%d jobs, want 2: the burst and the save after it", len(jobs))
	}
}

// TestWatch_NewSaveCancels: a save while a test runs kills the test's
// process group; that job is recorded interrupted and the new one runs to
// the end. Stopping the watch mid-test is the same, and leaves no slot.
func TestWatch_NewSaveCancels(t *testing.T) {
	repo := newWatchRepo(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	o := shellWatch(t, repo, "sh test.sh "+pidFile)
	o.Parallel = 2
	w := startWatch(t, o)

	writeWatchFiles(t, repo, map[string]string{"a.txt": "slow\n"})
	pid := waitPID(t, w, pidFile)
	writeWatchFiles(t, repo, map[string]string{"a.txt": "quick\n"})
	first, second := w.record(), w.record()
	if first.State != "interrupted" || !strings.Contains(first.Summary, "newer save") {
		t.Errorf("first record: state %s, %q; want interrupted by a newer save", first.State, first.Summary)
	}
	if second.State != "finished" || second.Verdict != evaluator.VerdictPassed {
		t.Errorf("second record: state %s, verdict %s; want finished, passed", second.State, second.Verdict)
	}
	waitDead(t, pid)
	jobs := watchJobs(t, watchStorePath(t, repo))
	if len(jobs) != 2 || jobs[0].State != "interrupted" || jobs[1].State != "finished" {
		t.Fatalf("jobs %+v, want one interrupted, then one finished", watchJobStates(jobs))
	}

	// Stop while a test runs: nil, the test killed, no slot left.
	os.Remove(pidFile)
	writeWatchFiles(t, repo, map[string]string{"a.txt": "slow again\n"})
	pid = waitPID(t, w, pidFile)
	if err := w.stop(); err != nil {
		t.Fatalf("watch returned %v after cancellation, want nil", err)
	}
	if r := w.record(); r.State != "interrupted" {
		t.Errorf("last record: state %s, want interrupted", r.State)
	}
	waitDead(t, pid)
	if wt := git(t, repo, "worktree", "list", "--porcelain"); strings.Count(wt, "worktree ") != 1 {
		t.Errorf("slots left behind:\n%s", wt)
	}
	if jobs := watchJobs(t, watchStorePath(t, repo)); jobs[len(jobs)-1].State != "interrupted" {
		t.Errorf("last job: state %s, want interrupted", jobs[len(jobs)-1].State)
	}
}

func watchJobStates(jobs []store.Job) []string {
	var out []string
	for _, j := range jobs {
		out = append(out, j.State)
	}
	return out
}

// waitPID waits for test.sh to write its PID: the slow test is running.
func waitPID(t *testing.T, w *watching, path string) int {
	t.Helper()
	var pid int
	w.until(func() bool {
		b, err := os.ReadFile(path)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && pid > 0
	}, "the slow test to start")
	return pid
}

// waitDead waits for a process to be gone.
func waitDead(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(watchWait)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestWatch_Storm: 5,000 new files are one evaluation; committing them and
// checking out the commit before (HEAD moves, 5,000 files go) are one line
// each; the pool follows HEAD.
func TestWatch_Storm(t *testing.T) {
	testenv.Long(t)
	repo := newWatchRepo(t)
	base := strings.TrimSpace(git(t, repo, "rev-parse", "HEAD"))
	o := shellWatch(t, repo, "sh test.sh")
	o.DB = filepath.Join(t.TempDir(), "store.db")
	o.Quiet = time.Second
	o.MaxWait = 2 * time.Minute // a storm on a loaded machine is still one
	w := startWatch(t, o)

	for i := range 5000 {
		writeWatchFiles(t, repo, map[string]string{fmt.Sprintf("gen/d%02d/f%04d.txt", i%50, i): "x\n"})
	}
	r := w.record()
	// The trigger lists every file unless the kernel's event queue
	// overflowed; the snapshot has them all either way.
	if r.State != "finished" || r.CandidateResult == nil || len(r.Files) != 5000 || len(r.Trigger) == 0 {
		t.Fatalf("storm: state %s, %d trigger files; want finished with 5000 files\n%s", r.State, len(r.Trigger), r.Summary)
	}

	git(t, repo, "add", "gen")
	git(t, repo, "commit", "-q", "-m", "generated")
	head := strings.TrimSpace(git(t, repo, "rev-parse", "HEAD"))
	r = w.record()
	if !r.HeadMoved || r.Base != head || r.State != "skipped" {
		t.Fatalf("commit: record %+v, want HEAD moved to %s and nothing to evaluate", r, head)
	}

	git(t, repo, "checkout", "-q", "--detach", base)
	r = w.record()
	if !r.HeadMoved || r.Base != base || r.State != "skipped" {
		t.Fatalf("checkout: record %+v, want HEAD moved to %s and nothing to evaluate", r, base)
	}

	writeWatchFiles(t, repo, map[string]string{"a.txt": "good\n"})
	r = w.record()
	if !slices.Equal(r.Trigger, []string{"a.txt"}) || r.Base != base || r.State != "finished" {
		t.Fatalf("save after checkout: record %+v, want a.txt evaluated against %s", r, base)
	}
	w.stop()
	if jobs := watchJobs(t, o.DB); len(jobs) != 2 {
		t.Fatalf("%d jobs, want 2: the storm and the last save", len(jobs))
	}
}

// TestWatch_Candidates: a candidate saved in the --candidates folder is
// evaluated on its own, against HEAD; a bad one gets its failure. The
// folder is in the working tree, untracked, yet no part of its candidate.
func TestWatch_Candidates(t *testing.T) {
	repo := newWatchRepo(t)
	cands := filepath.Join(repo, "candidates") // untracked, inside the tree
	if err := os.Mkdir(cands, 0o755); err != nil {
		t.Fatal(err)
	}
	o := shellWatch(t, repo, "sh test.sh")
	o.DB = filepath.Join(t.TempDir(), "store.db")
	o.Candidates = []string{cands}
	w := startWatch(t, o)
	head := strings.TrimSpace(git(t, repo, "rev-parse", "HEAD"))

	writeWatchFiles(t, cands, map[string]string{"broken.patch": "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-base\n+bad\n"})
	r := w.record()
	if r.CandidateResult == nil || r.Name != "broken" || r.Verdict != evaluator.VerdictFailed || r.Base != head {
		t.Fatalf("record %+v, want broken failed against HEAD", r)
	}
	if !slices.Equal(r.Trigger, []string{filepath.Base(cands) + "/broken.patch"}) {
		t.Errorf("trigger %q, want the patch", r.Trigger)
	}

	writeWatchFiles(t, cands, map[string]string{"whole/a.txt": "good\n"})
	r = w.record()
	if r.CandidateResult == nil || r.Name != "whole" || r.Verdict != evaluator.VerdictPassed || !slices.Equal(r.Files, []string{"a.txt"}) {
		t.Fatalf("record %+v, want whole passed, changing a.txt", r)
	}

	// The working tree is evaluated apart from them, and without them.
	writeWatchFiles(t, repo, map[string]string{"b.txt": "edited\n"})
	r = w.record()
	if r.CandidateResult == nil || r.Name != watch.TreeCandidate || !slices.Equal(r.Files, []string{"b.txt"}) {
		t.Fatalf("record %+v, want the working tree, changing b.txt", r)
	}
}

// TestWatch_Go: in a Go module with no --test, only the affected packages
// are tested, and a change that affects none runs nothing.
func TestWatch_Go(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on the fixture")
	}
	repo := filepath.Join(t.TempDir(), "repo")
	if err := testdata.WriteFixture(repo); err != nil {
		t.Fatal(err)
	}
	if _, err := testdata.InitRepo(context.Background(), repo); err != nil {
		t.Fatal(err)
	}
	o := shellWatch(t, repo, "")
	o.DB = filepath.Join(t.TempDir(), "store.db")
	w := startWatch(t, o)

	src := filepath.Join(repo, "words", "words.go")
	orig, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	writeWatchFiles(t, repo, map[string]string{"words/words.go": string(orig) + "\n// An edit.\n"})
	r := w.record()
	if r.State != "finished" || r.CandidateResult == nil || r.Verdict != evaluator.VerdictPassed || r.TestsTotal == 0 {
		t.Fatalf("record %+v, want the words tests passed", r)
	}
	db, err := store.Open(context.Background(), o.DB)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	results, err := db.TestResults(context.Background(), r.Job, watch.TreeCandidate)
	if err != nil || len(results) == 0 {
		t.Fatalf("test results: %v, %d", err, len(results))
	}
	for _, tr := range results {
		if tr.Package != testdata.FixtureModule+"/words" {
			t.Errorf("test %s of %s ran; want only the words package's", tr.Test, tr.Package)
		}
	}

	writeWatchFiles(t, repo, map[string]string{"words/words.go": string(orig), "NOTES.md": "notes\n"})
	r = w.record()
	if r.State != "skipped" || !strings.Contains(r.Summary, "no Go package") {
		t.Fatalf("record %+v, want skipped: no Go package affected", r)
	}
}

// TestWatch_Usage: flags that fix a base or candidates are refused.
func TestWatch_Usage(t *testing.T) {
	repo := newWatchRepo(t)
	file := filepath.Join(t.TempDir(), "x.patch")
	writeWatchFiles(t, filepath.Dir(file), map[string]string{"x.patch": "x"})
	for _, args := range [][]string{
		{"--base", "HEAD~1"},
		{"--candidate-ref", "main"},
		{"--fail-on-regression"},
		{"--format", "markdown"},
		{"--candidates", file},
		{"extra-arg"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), append([]string{"watch", "--repo", repo}, args...), &stdout, &stderr)
		var ue *usageError
		if !errors.As(err, &ue) {
			t.Errorf("watch %s: %v, want a usage error", strings.Join(args, " "), err)
		}
	}
}

// TestWatch_PrunesArtifacts: a long session keeps the artifacts of only its
// last few evaluations without a winner. Apply of an older one says why it
// cannot, and the store keeps every job.
func TestWatch_PrunesArtifacts(t *testing.T) {
	repo := newWatchRepo(t)
	o := shellWatch(t, repo, "sh test.sh")
	o.keptArtifacts = 2
	w := startWatch(t, o)
	var jobs []string
	for i := range 4 {
		writeWatchFiles(t, repo, map[string]string{"a.txt": fmt.Sprintf("good %d\n", i)})
		r := w.record()
		if r.State != "finished" || r.Job == "" {
			t.Fatalf("save %d: record %+v, want a finished job", i, r)
		}
		jobs = append(jobs, r.Job)
	}
	if err := w.stop(); err != nil {
		t.Fatal(err)
	}
	r, err := gitcmd.FindRepo(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range jobs {
		_, err := os.Stat(filepath.Join(r.ArtifactsDir(), id, "candidates"))
		if kept := err == nil; kept != (i >= 2) {
			t.Errorf("job %d (%s): artifacts kept %v (%v), want %v", i, id, kept, err, i >= 2)
		}
	}
	if n := len(watchJobs(t, watchStorePath(t, repo))); n != 4 {
		t.Errorf("%d jobs in the store, want 4", n)
	}
	var stdout, stderr bytes.Buffer
	ao := applyOptions{storeOptions: storeOptions{Repo: repo}, Job: jobs[0], Candidate: watch.TreeCandidate}
	err = runApply(context.Background(), ao, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "were removed") {
		t.Errorf("apply of a pruned job: %v, want an error saying its artifacts were removed", err)
	}
	git(t, repo, "checkout", "--", "a.txt") // apply wants the file clean
	ao.Job = jobs[3]
	if err := runApply(context.Background(), ao, &stdout, &stderr); err != nil {
		t.Errorf("apply of a kept job: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(repo, "a.txt")); string(b) != "good 3\n" {
		t.Errorf("a.txt after apply is %q, want the last save's", b)
	}
}

// TestWatch_OwnAndEditorFiles: some files are neither triggers nor part of
// the working tree evaluated. They are the README's layout (optimizer.toml
// and a candidates folder at the root), optimizer's own .optimizer* files,
// and editors' temporary files. Those are sed -i's sedXXXXXX, vim's swap
// files and 4913, and emacs' lock and backup files.
func TestWatch_OwnAndEditorFiles(t *testing.T) {
	repo := newWatchRepo(t)
	cands := filepath.Join(repo, "candidates")
	noise := map[string]string{
		"optimizer.toml": "parallel-candidates = 1\n", ".optimizer-notes": "mine\n",
		"sedKsiRms": "a\n", "sed4Xq0za": "a\n", ".a.txt.swp": "x", "4913": "", "a.txt~": "old\n", ".#a.txt": "lock",
		"b.txt___jb_tmp___": "x",
	}
	writeWatchFiles(t, repo, noise)
	writeWatchFiles(t, repo, map[string]string{"b.txt": "edited\n", "candidates/keep.patch": "not a patch of the tree\n"})
	o := shellWatch(t, repo, "sh test.sh")
	o.DB = filepath.Join(t.TempDir(), "store.db")
	o.Candidates = []string{cands}
	w := startWatch(t, o)

	r := w.record() // the tree at start
	if r.CandidateResult == nil || r.Name != watch.TreeCandidate || !slices.Equal(r.Files, []string{"b.txt"}) || !slices.Equal(r.Trigger, []string{"b.txt"}) {
		t.Fatalf("at start: record %+v, want the working tree, changing b.txt alone", r)
	}
	// Saves of the same noise again, then a real save: the next record is the
	// real save's alone.
	for name := range noise {
		noise[name] += "saved again\n"
	}
	writeWatchFiles(t, repo, noise)
	writeWatchFiles(t, repo, map[string]string{"sedAB12cd": "temp\n"})
	writeWatchFiles(t, repo, map[string]string{"a.txt": "good\n"})
	r = w.record()
	if r.CandidateResult == nil || !slices.Equal(r.Trigger, []string{"a.txt"}) || !slices.Equal(r.Files, []string{"a.txt", "b.txt"}) {
		t.Fatalf("record %+v, want one triggered by a.txt alone, changing a.txt and b.txt", r)
	}
}

// TestWatch_TestsFirst: a save whose tests pass gets its test verdict at
// once, as its own line, before its benchmark; the full line follows.
func TestWatch_TestsFirst(t *testing.T) {
	repo := newWatchRepo(t)
	o := shellWatch(t, repo, "sh test.sh")
	o.DB = filepath.Join(t.TempDir(), "store.db")
	o.Bench = "sleep 0.05"
	o.MinPairs, o.MaxPairs, o.NoProfile = 2, 3, true
	w := startWatch(t, o)
	writeWatchFiles(t, repo, map[string]string{"a.txt": "good\n"})
	r := w.record()
	if r.State != "tested" || r.CandidateResult == nil || r.Verdict != evaluator.VerdictPassed || !slices.Equal(r.Trigger, []string{"a.txt"}) ||
		!strings.HasSuffix(r.Summary, "measuring speed…") {
		t.Fatalf("first record %+v, want the test verdict, tested, with the speed to come", r)
	}
	r = w.record()
	if r.State != "finished" || r.CandidateResult == nil || r.Pairs == 0 || !slices.Equal(r.Trigger, []string{"a.txt"}) {
		t.Fatalf("second record %+v, want the finished evaluation with its benchmark pairs", r)
	}
}

// TestWatch_Refines: a save's first speed verdict has a quick budget. When
// it does not settle and no newer save comes, the same snapshot is measured
// again with the whole --bench-budget. That is said as refined.
func TestWatch_Refines(t *testing.T) {
	repo := newWatchRepo(t)
	o := shellWatch(t, repo, "sh test.sh")
	o.DB = filepath.Join(t.TempDir(), "store.db")
	o.Bench = noisyBench // never settles in a few pairs
	o.MinPairs, o.MaxPairs, o.NoProfile = 2, 4, true
	o.BenchBudget, o.quickBudget = 10*time.Minute, time.Millisecond // the quick one stops at its first look
	w := startWatch(t, o)
	writeWatchFiles(t, repo, map[string]string{"a.txt": "good\n"})
	if r := w.record(); r.State != "tested" {
		t.Fatalf("first record %+v, want the test verdict", r)
	}
	r := w.record()
	if r.State != "finished" || r.CandidateResult == nil || r.Pairs != 2 || strings.HasPrefix(r.Summary, "refined") {
		t.Fatalf("second record %+v, want the quick verdict, 2 pairs", r)
	}
	r = w.record()
	if r.State != "finished" || r.CandidateResult == nil || r.Pairs != 4 || !strings.HasPrefix(r.Summary, "refined: ") ||
		!slices.Equal(r.Trigger, []string{"a.txt"}) {
		t.Fatalf("third record %+v, want the refined verdict, all 4 pairs, for the same save", r)
	}
}

// TestWatch_RefineCancelled: a save while a quick verdict is being refined
// cancels the refinement; the new save is evaluated.
func TestWatch_RefineCancelled(t *testing.T) {
	repo := newWatchRepo(t)
	o := shellWatch(t, repo, "sh test.sh")
	o.DB = filepath.Join(t.TempDir(), "store.db")
	o.Bench = "sleep 0.2; " + noisyBench // a refinement of 30 pairs takes 12 s at least
	o.MinPairs, o.MaxPairs, o.NoProfile = 2, 30, true
	o.BenchBudget, o.quickBudget = 10*time.Minute, time.Millisecond
	w := startWatch(t, o)
	writeWatchFiles(t, repo, map[string]string{"a.txt": "good\n"})
	w.record() // tested
	if r := w.record(); r.State != "finished" || r.Pairs != 2 {
		t.Fatalf("record %+v, want the quick verdict", r)
	}
	writeWatchFiles(t, repo, map[string]string{"b.txt": "edited\n"})
	if r := w.record(); r.State != "interrupted" || !strings.Contains(r.Summary, "interrupted by a newer save") {
		t.Fatalf("record %+v, want the refinement interrupted by the save", r)
	}
	if r := w.record(); r.State != "tested" || !slices.Equal(r.Trigger, []string{"b.txt"}) {
		t.Fatalf("record %+v, want the new save's test verdict", r)
	}
}
