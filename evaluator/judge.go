package evaluator

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/gotest"
	"github.com/optimizer-dev/optimizer/evaluator/testedits"
	"github.com/optimizer-dev/optimizer/evaluator/testjudge"
	"github.com/optimizer-dev/optimizer/proc"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// The judge is base's tests and benchmarks, plus the tests any candidate
// adds that pass at base. Two rules keep it honest:
//
//   - The judged cannot edit the judge. A candidate's changes to _test.go
//     files are found function by function (TestEdits). Unless
//     Options.TrustCandidateTests is set, every stage of the candidate lays
//     base's versions of those files back over it. That covers tests,
//     benchmarks and profile, so a deleted assertion or a halved benchmark
//     changes nothing.
//   - Contributed tests judge everyone. After phase 1, the test functions a
//     candidate adds or changes are run at base, in its own versions of
//     their files, alone (go test -run '^(TestA|TestB)$' in their
//     packages). Those that pass at base are run, the same way, on every
//     candidate that passed phase 1, laid over its code. A candidate that
//     fails one fails with kind test, naming the candidate that added it. A
//     test command judged through JUnit reports runs whole, with the
//     author's test files laid over each tree (crossJUnit below).

// errContributedTimeout marks a run of contributed tests killed at --timeout.
var errContributedTimeout = errors.New("ran past --timeout")

// restore is what j.stage lays back over a staged candidate: base's versions
// of the test files it changes (deleted: files it adds).
type restore struct {
	files   map[string][]byte
	deleted []string
}

// j.stage stages c in slot, and lays base's test files back over it
// unless the job trusts candidates' tests.
func (j *job) stage(ctx context.Context, slot *worktreepool.Slot, c *cand) error {
	if err := stage(ctx, slot, c.spec); err != nil {
		return err
	}
	if c.restore == nil {
		return nil
	}
	if err := slot.WriteFiles(c.restore.files, c.restore.deleted); err != nil {
		return fmt.Errorf("lay base's test files back: %w", err)
	}
	return nil
}

// testPaths are the Go test files c touches.
func testPaths(c *cand) []string {
	var out []string
	for _, p := range c.spec.Paths() {
		if testedits.IsTestFile(p) {
			out = append(out, p)
		}
	}
	return out
}

// readFiles reads paths under dir through os.Root; a missing or unreadable
// file is nil.
func readFiles(dir string, paths []string) map[string][]byte {
	out := make(map[string][]byte, len(paths))
	root, err := os.OpenRoot(dir)
	if err != nil {
		return out
	}
	defer root.Close()
	for _, p := range paths {
		b, err := fs.ReadFile(root.FS(), p)
		if err == nil {
			out[p] = b
		}
	}
	return out
}

// stageJudged is phase 1's first staging of c in slot. It reads base's
// versions of the test files c touches, stages c, and compares the two
// versions. Then it decides whose versions judge c from then on.
func (j *job) stageJudged(ctx context.Context, slot *worktreepool.Slot, c *cand) error {
	paths := testPaths(c)
	if len(paths) == 0 {
		return stage(ctx, slot, c.spec)
	}
	base := readFiles(slot.Dir(), paths)
	if err := stage(ctx, slot, c.spec); err != nil {
		return err
	}
	edits, con := testedits.Diff(base, readFiles(slot.Dir(), paths))
	if edits == nil {
		return nil
	}
	edits.Judged = "candidate"
	if !j.opts.TrustCandidateTests {
		edits.Judged = "base"
		r := &restore{files: map[string][]byte{}}
		for _, p := range edits.Files {
			if b, ok := base[p]; ok {
				r.files[p] = b
			} else {
				r.deleted = append(r.deleted, p)
			}
		}
		c.restore = r
		if err := slot.WriteFiles(r.files, r.deleted); err != nil {
			return fmt.Errorf("lay base's test files back: %w", err)
		}
	}
	c.contrib = con
	j.mu.Lock()
	c.res.TestEdits = edits
	j.mu.Unlock()
	if edits.Flagged() {
		j.event(ctx, "test-edits", c.spec.Name, edits.Summary())
	}
	return nil
}

// judgedHint is added to a failure of a candidate judged with base's
// versions of test files it changed.
func judgedHint(c *cand) string {
	if c.restore == nil {
		return ""
	}
	return fmt.Sprintf(" (judged with base's %s, which it changes; pass --trust-candidate-tests if that change is meant)",
		strings.Join(testjudge.First(c.res.TestEdits.Files, 3), ", "))
}

// crossing reports whether the job runs contributed tests: it needs go
// test -json, or a test command whose JUnit reports give its tests.
func (j *job) crossing() bool { return j.goTest || len(j.reports) > 0 }

// crossTests runs every candidate's contributed tests at base and then on
// each candidate that passed phase 1.
func (j *job) crossTests(ctx context.Context) {
	if !j.crossing() {
		return
	}
	var authors, passed []*cand
	for _, c := range j.cands {
		// A go test job runs Go test functions only.
		runnable := c.contrib != nil && (!j.goTest || len(c.contrib.Names) > 0)
		if runnable && c.res.Verdict != VerdictDuplicate && (c.res.Failure == nil || c.res.Failure.Kind != FailApply) {
			authors = append(authors, c)
		}
		if c.res.Verdict == VerdictPassed {
			passed = append(passed, c)
		}
	}
	if len(authors) == 0 || len(passed) == 0 {
		return
	}
	if !j.goTest {
		base, err := j.base.wait(ctx)
		if err != nil || !base.JUnit {
			return // base wrote no report: candidates are judged by exit code (already warned)
		}
	}
	j.phase(ctx, PhaseContributed)
	j.begin(PhaseContributed)
	defer j.end(PhaseContributed)
	var wg sync.WaitGroup
	for _, a := range authors {
		wg.Go(func() {
			defer j.recoverCandidate(ctx, a, time.Now())
			j.crossOne(ctx, a, passed)
		})
	}
	wg.Wait()
}

// crossOne judges the passed candidates by the tests author adds.
func (j *job) crossOne(ctx context.Context, author *cand, passed []*cand) {
	atBase, err := j.runContributed(ctx, author, nil)
	if ctx.Err() != nil {
		return
	}
	valid := err == nil && passedAny(atBase)
	switch {
	case err != nil:
		j.warn(ctx, "run the tests that candidate %s adds at base: %v; they judge only it", author.spec.Name, err)
	case !valid:
		j.event(ctx, "contributed-tests", author.spec.Name, "the tests it adds pass nowhere at base: they judge only it")
	}
	var wg sync.WaitGroup
	for _, c := range passed {
		self := c == author
		if (self && c.restore == nil) || (!self && !valid) {
			continue // its own run already had its tests; or they state nothing of base
		}
		wg.Go(func() {
			defer j.recoverCandidate(ctx, c, time.Now())
			run, err := j.runContributed(ctx, author, c)
			if ctx.Err() != nil {
				return
			}
			if err != nil {
				kind := FailError
				switch {
				case errors.Is(err, errContributedTimeout):
					kind = FailTimeout
				case errors.Is(err, errNoReport):
					kind = FailTest // base writes one with these files
				}
				j.failLate(ctx, c, &Failure{Kind: kind, Message: fmt.Sprintf("run the tests that candidate %s adds: %v", author.spec.Name, err)})
				return
			}
			if f := j.contributedFailure(author, c, atBase, run); f != nil {
				j.failLate(ctx, c, f)
			}
		})
	}
	wg.Wait()
}

// errNoReport marks a run of contributed tests that wrote no JUnit report.
var errNoReport = errors.New("no test report")

// runContributed runs author's contributed tests in a slot holding c (nil:
// base), judged as usual, with author's versions of the files that hold them.
// A JUnit job runs its whole test command (runJUnitContributed).
func (j *job) runContributed(ctx context.Context, author, c *cand) (*gotest.Run, error) {
	slot, err := j.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("acquire a slot: %w", err)
	}
	defer j.pool.Release(slot)
	if c != nil {
		if err := j.stage(ctx, slot, c); err != nil {
			return nil, fmt.Errorf("stage candidate %s: %w", c.spec.Name, err)
		}
	}
	con := author.contrib
	if err := slot.WriteFiles(con.Files, nil); err != nil {
		return nil, fmt.Errorf("lay %s's test files: %w", author.spec.Name, err)
	}
	if !j.goTest {
		return j.runJUnitContributed(ctx, slot, author, c)
	}
	args := []string{"go", "test", "-json", "-count=1"}
	args = append(args, j.opts.BuildFlags...)
	args = append(args, "-run", "^("+strings.Join(con.Names, "|")+")$")
	for _, d := range con.Dirs {
		args = append(args, "./"+filepath.ToSlash(d))
	}
	gotmp, done, err := j.goTmpDir()
	if err != nil {
		return nil, err
	}
	defer done()
	on := "base"
	if c != nil {
		on = c.spec.Name
		j.emit(Event{Kind: EventStart, Phase: PhaseContributed, Candidate: c.spec.Name, Index: c.idx, Message: author.spec.Name})
	}
	j.log.Debug("contributed tests start", "author", author.spec.Name, "on", on, "slot", slot.Name(), "tests", len(con.Names))
	parser := gotest.NewParser()
	res, err := proc.Run(ctx, proc.Cmd{Dir: slot.Dir(), Env: j.withEnv(append(slot.Env(), "GOTMPDIR="+gotmp)), Args: args, Timeout: j.opts.Timeout,
		CPU: -1, MemLimit: j.opts.MemLimit, Stdout: parser, Sandbox: j.box(slot, nil, []string{gotmp})})
	if err != nil {
		return nil, err
	}
	run := parser.Result()
	j.log.Debug("contributed tests end", "author", author.spec.Name, "on", on, "took", res.Wall.Round(time.Millisecond),
		"passed", run.Passed, "failed", run.Failed, "timed_out", res.TimedOut)
	if res.TimedOut {
		return nil, fmt.Errorf("%w %s; its process group was killed", errContributedTimeout, j.opts.Timeout)
	}
	return run, nil
}

// runJUnitContributed runs the test command in slot, which holds c (nil:
// base) with author's test files laid over it, and reads its reports. The
// tests of those files are not known before they run, so all of them run.
func (j *job) runJUnitContributed(ctx context.Context, slot *worktreepool.Slot, author, c *cand) (*gotest.Run, error) {
	on := "base"
	if c != nil {
		on = c.spec.Name
		j.emit(Event{Kind: EventStart, Phase: PhaseContributed, Candidate: c.spec.Name, Index: c.idx, Message: author.spec.Name})
	}
	j.log.Debug("contributed tests start", "author", author.spec.Name, "on", on, "slot", slot.Name(), "files", len(author.contrib.Files))
	out, err := j.runTests(ctx, slot, nil)
	if err != nil {
		return nil, err
	}
	j.log.Debug("contributed tests end", "author", author.spec.Name, "on", on, "took", dur(out.Seconds), "result", out.Summary(), "timed_out", out.TimedOut)
	switch {
	case out.TimedOut:
		return nil, fmt.Errorf("%w %s; its process group was killed", errContributedTimeout, j.opts.Timeout)
	case !out.JUnit:
		return nil, fmt.Errorf("%w: %s (exit %d)", errNoReport, out.NoReport, out.Exit)
	}
	return out.Tests, nil
}

func passedAny(run *gotest.Run) bool {
	if run == nil {
		return false
	}
	for _, st := range run.Tests {
		if st == gotest.StatusPass {
			return true
		}
	}
	return false
}

// contributedFailure judges c's run of author's tests against base's run.
// In a JUnit job the run is of every test. So the author fails only on a
// test that does not fail in base's own run. The others fail only on a test
// that passes at base with the author's files.
func (j *job) contributedFailure(author, c *cand, atBase, run *gotest.Run) *Failure {
	if c != author {
		return testjudge.Contributed(author.spec.Name, sortedKeys(author.contrib.Files), !j.goTest, atBase, run)
	}
	var baseOwn *gotest.Run
	if !j.goTest {
		// Done: crossTests waited for it.
		if base, err := j.base.wait(context.Background()); err == nil {
			baseOwn = base.Tests
		}
	}
	return testjudge.Own(run, baseOwn)
}

func sortedKeys(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// failLate fails a candidate that passed phase 1; the first failure found
// is kept.
func (j *job) failLate(ctx context.Context, c *cand, f *Failure) {
	j.mu.Lock()
	if c.res.Verdict != VerdictPassed {
		j.mu.Unlock()
		return
	}
	c.res.Verdict = VerdictFailed
	c.res.Failure = f
	j.mu.Unlock()
	j.settle(ctx, c)
}

// settleRest settles the candidates that passed phase 1 when no benchmark
// phase follows: their verdict waited for the contributed tests.
func (j *job) settleRest(ctx context.Context) {
	var rest []*cand
	j.mu.Lock()
	for _, c := range j.cands {
		if c.res.Verdict == VerdictPassed {
			rest = append(rest, c)
		}
	}
	j.mu.Unlock()
	for _, c := range rest {
		j.settle(ctx, c)
	}
}
