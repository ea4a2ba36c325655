package evaluator

import (
	"context"
	"errors"
	"fmt"
	"github.com/optimizer-dev/optimizer/excerpt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/evaluator/gotest"
	"github.com/optimizer-dev/optimizer/proc"
	"github.com/optimizer-dev/optimizer/result"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// testOutcome is one run of the test command in one tree.
type testOutcome struct {
	Exit     int         `json:"exit"`
	TimedOut bool        `json:"timed_out"`
	Output   string      `json:"output,omitempty"`
	Tests    *gotest.Run `json:"tests,omitempty"`
	Seconds  float64     `json:"seconds"`
	// Stdout counts the bytes the command wrote to stdout: a runner that
	// ran tests prints something there.
	Stdout int64 `json:"stdout_bytes,omitempty"`
	// JUnit says Tests came from the command's JUnit XML reports;
	// NoReport says why a run that should have written them has none.
	JUnit    bool   `json:"junit,omitempty"`
	NoReport string `json:"no_report,omitempty"`
}

// behavior is phase 1: every candidate's tests run concurrently with the
// baseline's (started earlier), at most N at a time, gated by the pool. A
// candidate starts as soon as resolve has its content id, while later ones
// are still being resolved. A slot is released as soon as its tests end,
// pass or fail. When no candidate is left to run, the baseline is stopped:
// nothing needs it.
func (j *job) behavior(ctx context.Context, base *baseline) error {
	var (
		wg    sync.WaitGroup
		begin sync.Once
	)
	// A test command that cannot run at base stops the phase: no candidate
	// can be judged by it.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ended := make(chan struct{})
	go func() {
		select {
		case <-base.done:
			var bte *BaseTestError
			if errors.As(base.err, &bte) {
				cancel()
			}
		case <-ended:
		}
	}()
	defer close(ended)
	j.begin(PhaseResolve)
	ran := j.resolve(ctx, func(c *cand) {
		begin.Do(func() { j.phase(ctx, PhaseBehavior) })
		wg.Go(func() {
			defer j.recoverCandidate(ctx, c, time.Now())
			j.behaveOne(ctx, c, base)
		})
	})
	j.end(PhaseResolve)
	if ran == 0 {
		base.stop()
	}
	wg.Wait()
	j.end(PhaseBehavior)
	select {
	case <-base.done:
		var bte *BaseTestError
		if errors.As(base.err, &bte) {
			return bte
		}
	default:
	}
	return nil
}

// behaveOne runs one candidate's tests and judges them against the baseline.
func (j *job) behaveOne(ctx context.Context, c *cand, base *baseline) {
	start := time.Now()
	if j.reuseTests(ctx, c, start) {
		return
	}
	out, fail, err := j.testInSlot(ctx, c)
	if err != nil {
		if ctx.Err() == nil {
			j.jobFault(err)
		}
		return
	}
	if fail != nil && fail.Kind == FailTimeout && j.oversubscribed() && ctx.Err() == nil {
		out, fail = j.testAlone(ctx, c)
	}
	if ctx.Err() != nil {
		return
	}
	if fail != nil {
		j.fail(ctx, c, start, fail)
		return
	}
	j.storeTests(ctx, c.spec.Name, out)
	b, err := base.wait(ctx)
	if err != nil {
		if ctx.Err() == nil {
			j.jobFault(err) // base could not be tested: no candidate's doing
		}
		return
	}
	if f := j.judge(b, out); f != nil {
		f.Message += judgedHint(c)
		j.keepTests(ctx, c, b, f)
		j.fail(ctx, c, start, f)
		return
	}
	if out.Tests != nil {
		j.mu.Lock()
		c.res.TestsPassed, c.res.TestsTotal = out.Tests.Passed, out.Tests.Passed+out.Tests.Failed+out.Tests.Skipped
		j.mu.Unlock()
	}
	j.keepTests(ctx, c, b, nil)
	j.passed(ctx, c, start)
}

// passed gives c, whose tests pass, its verdict for phase 1, and settles it
// when nothing is to come.
func (j *job) passed(ctx context.Context, c *cand, start time.Time) {
	j.mu.Lock()
	c.res.Verdict = VerdictPassed
	if !j.opts.Shard.IsZero() {
		c.res.Note = "benchmarked on one host after the shards are merged (optimizer merge, then optimizer bench)"
	}
	c.res.Seconds = time.Since(start).Seconds()
	j.mu.Unlock()
	if j.noBench && !j.crossing() {
		j.settle(ctx, c)
		return
	}
	// Settled after the contributed tests (judge.go), or by phase 2.
	if !j.noBench {
		j.mu.Lock()
		c.res.Live = &Live{Stage: result.StageBenchQueue}
		j.mu.Unlock()
	}
	j.saveCandidate(ctx, c)
	if j.noBench || c.restore != nil {
		return // no benchmark to come, or the tests it adds are still to run on it
	}
	j.mu.Lock()
	res := c.res
	j.mu.Unlock()
	j.emit(Event{Kind: EventTested, Phase: "behavior", Candidate: c.spec.Name, Index: c.idx, Result: &res})
}

// testIn stages c in slot and runs the tests there.
func (j *job) testIn(ctx context.Context, slot *worktreepool.Slot, c *cand) (*testOutcome, *Failure) {
	start := time.Now()
	if err := j.stageJudged(ctx, slot, c); err != nil {
		j.log.Debug("stage failed", "candidate", c.spec.Name, "slot", slot.Name(), "err", err)
		return nil, &Failure{Kind: FailApply, Message: err.Error()}
	}
	if touchesModules(c.spec.Paths()) {
		j.download(ctx, slot)
	}
	j.log.Debug("candidate staged", "candidate", c.spec.Name, "slot", slot.Name(), "took", since(start))
	j.log.Debug("tests start", "candidate", c.spec.Name, "slot", slot.Name())
	out, err := j.runTests(ctx, slot, c)
	if err != nil {
		return nil, &Failure{Kind: FailError, Message: err.Error()}
	}
	j.log.Debug("tests end", "candidate", c.spec.Name, "took", dur(out.Seconds), "result", out.summary(), "timed_out", out.TimedOut)
	if out.TimedOut {
		building := j.goTest && (out.Tests == nil || len(out.Tests.Tests) == 0)
		if building {
			// Killed before any test started: go test was still
			// building. Whether it compiles is found out now, so that a
			// compile error is not called a timeout.
			if f := j.buildCheck(ctx, slot); f != nil {
				return nil, f
			}
		}
		f := &Failure{Kind: FailTimeout,
			Message: fmt.Sprintf("the test command ran past --timeout %s; its process group was killed", j.opts.Timeout),
			Output:  tail(out.text(), 40)}
		if building && ctx.Err() == nil {
			f.Message += "; no test had started: it compiles, so building alone took longer than the timeout (is the machine loaded?)"
		}
		if unfinished := failing(out.Tests); len(unfinished) > 0 {
			// go test -json: the tests still running when it was killed
			// count as failed; their own output says more than the stream.
			f.Tests = unfinished
			f.Message += "; still running: " + strings.Join(first(gotest.Names(unfinished), 5), ", ")
			f.Output = excerpts(out.Tests, unfinished, out.Output)
		}
		return nil, f
	}
	return out, nil
}

// buildCheckTimeout bounds buildCheck: a build, not a test run, so not
// --timeout, which the build has already run past.
const buildCheckTimeout = 5 * time.Minute

// buildCheck builds the Go tests staged in slot without running any, and
// returns the build failure, or nil when they compile (or the check could
// not tell).
func (j *job) buildCheck(ctx context.Context, slot *worktreepool.Slot) *Failure {
	gotmp, done, err := j.goTmpDir()
	if err != nil {
		return nil
	}
	defer done()
	parser := gotest.NewParser()
	cmd := proc.Cmd{Dir: slot.Dir(), Env: j.testEnv(slot.Env(), gotmp), Args: []string{"go", "test", "-count=1", "-run=^$", "-json", "./..."},
		Timeout: buildCheckTimeout, CPU: -1, MemLimit: j.opts.MemLimit, Sandbox: j.box(slot, nil, []string{gotmp}), Stdout: parser}
	res, err := proc.Run(ctx, cmd)
	if err != nil || res.TimedOut {
		return nil
	}
	run := parser.Result()
	if run == nil || len(run.BuildFailed) == 0 {
		return nil
	}
	return &Failure{Kind: FailBuild,
		Message: "does not compile: " + strings.Join(run.BuildFailed, ", ") + fmt.Sprintf(" (found by building alone after the tests ran past --timeout %s while building)", j.opts.Timeout),
		Output:  excerpts(run, run.BuildFailed, string(res.Output))}
}

// failing lists the tests of a go test run that did not pass, sorted; nil
// for a run that was not go test -json.
func failing(run *gotest.Run) []string {
	if run == nil {
		return nil
	}
	var out []string
	for key, st := range run.Tests {
		if st == gotest.StatusFail {
			out = append(out, key)
		}
	}
	slices.Sort(out)
	return out
}

// stage lays candidate c over the slot's tree.
func stage(ctx context.Context, slot *worktreepool.Slot, c candidate.Candidate) error {
	if c.Invalid != nil {
		return c.Invalid
	}
	if len(c.Patch) > 0 {
		if err := slot.Apply(ctx, c.Patch); err != nil {
			return fmt.Errorf("apply patch: %w", err)
		}
	}
	if len(c.Files) > 0 || len(c.Deleted) > 0 {
		if err := slot.WriteFiles(c.Files, c.Deleted); err != nil {
			return fmt.Errorf("write files: %w", err)
		}
	}
	return nil
}

// runTests runs the test command in a slot, for candidate c (nil: base).
// The error is only for a command that could not start.
func (j *job) runTests(ctx context.Context, slot *worktreepool.Slot, c *cand) (*testOutcome, error) {
	gotmp, done, err := j.goTmpDir()
	if err != nil {
		return nil, err
	}
	defer done()
	cmd := proc.Cmd{Dir: slot.Dir(), Env: j.testEnv(slot.Env(), gotmp), Args: proc.Shell(j.test), Timeout: j.opts.Timeout, CPU: -1,
		MemLimit: j.opts.MemLimit, Sandbox: j.box(slot, nil, []string{gotmp})}
	var parser *gotest.Parser
	stdout := &counter{}
	cmd.Stdout = stdout
	if j.goTest {
		parser = gotest.NewParser()
		stdout.w = parser
	}
	stopWatch := func() {}
	if c != nil {
		stopWatch = j.watchStuck(ctx, c, parser)
	}
	if err := clearReports(slot.Dir(), j.reports); err != nil {
		return nil, err
	}
	res, err := proc.Run(ctx, cmd)
	stopWatch()
	if err != nil {
		return nil, err
	}
	out := &testOutcome{Exit: res.ExitCode, TimedOut: res.TimedOut, Output: string(res.Output), Seconds: res.Wall.Seconds(),
		Stdout: stdout.n}
	if parser != nil {
		out.Tests = parser.Result()
	}
	if len(j.reports) > 0 {
		out.Tests, out.NoReport = readReports(slot.Dir(), j.reports)
		out.JUnit = out.Tests != nil
	}
	return out, nil
}

// counter counts the bytes written through it, passing them on to w.
type counter struct {
	w io.Writer
	n int64
}

// An error of w stops only w: the count goes on.
func (c *counter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	if c.w != nil {
		if _, err := c.w.Write(p); err != nil {
			c.w = nil
		}
	}
	return len(p), nil
}

// judge compares a candidate's passing run with the baseline's. It returns
// nil when the candidate keeps every test that passed at base.
func (j *job) judge(base, out *testOutcome) *Failure {
	if out.Tests != nil && base.Tests != nil {
		d := gotest.Compare(base.Tests, out.Tests)
		if len(d.BuildFailed) > 0 {
			return &Failure{Kind: FailBuild,
				Message: "does not compile: " + strings.Join(d.BuildFailed, ", "),
				Output:  excerpts(out.Tests, d.BuildFailed, out.Output)}
		}
		if crashed := crashers(d, out.Tests); len(crashed) > 0 {
			return &Failure{Kind: FailTest, Tests: append(crashed, d.Regressed...),
				Message: "new tests fail: " + strings.Join(first(gotest.Names(crashed), 5), ", ") +
					"; tests that pass at base did not run after them: " + strings.Join(first(gotest.Names(d.Regressed), 5), ", "),
				Output: excerpts(out.Tests, crashed, out.Output)}
		}
		if len(d.Regressed) > 0 {
			return &Failure{Kind: FailTest, Tests: d.Regressed,
				Message: "tests that pass at base fail: " + strings.Join(first(gotest.Names(d.Regressed), 5), ", "),
				Output:  excerpts(out.Tests, d.Regressed, out.Output)}
		}
	}
	if f := judgeReport(base, out); f != nil {
		return f
	}
	if out.Exit != 0 && base.Exit == 0 {
		return &Failure{Kind: FailTest,
			Message: fmt.Sprintf("the test command exits %d where base exits 0", out.Exit),
			Output:  tail(out.text(), 40)}
	}
	return nil
}

// judgeReport judges what JUnit reports add to the per-test comparison: a
// candidate that writes no report where base wrote one fails, and one that
// exits non-zero where base exits 0 names its new failing tests.
func judgeReport(base, out *testOutcome) *Failure {
	switch {
	case base.JUnit && !out.JUnit:
		return &Failure{Kind: FailTest,
			Message: fmt.Sprintf("%s where base wrote one (exit %d)", out.NoReport, out.Exit),
			Output:  tail(out.text(), 40)}
	case !out.JUnit || !base.JUnit || out.Exit == 0 || base.Exit != 0:
		return nil
	}
	if d := gotest.Compare(base.Tests, out.Tests); len(d.NewFailures) > 0 {
		return &Failure{Kind: FailTest, Tests: d.NewFailures,
			Message: fmt.Sprintf("the test command exits %d where base exits 0; new tests fail: %s", out.Exit,
				strings.Join(first(d.NewFailures, 5), ", ")),
			Output: excerpts(out.Tests, d.NewFailures, out.Output)}
	}
	return nil
}

// crashers returns the failing tests that are new in the candidate when
// every regression is a test that did not run at all: a new test that panics
// or exits ends its test binary, and the old tests after it never run. The
// failure is the new test's, not theirs.
func crashers(d gotest.Diff, cand *gotest.Run) []string {
	if len(d.Regressed) == 0 || len(d.NewFailures) == 0 {
		return nil
	}
	pkgs := map[string]bool{}
	for _, key := range d.Regressed {
		if cand.Tests[key] != "" {
			return nil // a test that ran and failed: it speaks for itself
		}
		pkg, _ := cand.Split(key)
		pkgs[pkg] = true
	}
	var out []string
	for _, key := range d.NewFailures {
		if pkg, test := cand.Split(key); test != "" && pkgs[pkg] {
			out = append(out, key)
		}
	}
	return out
}

// text is the run's output as a person would read it: go test -json
// decoded, terminal escapes stripped.
func (o *testOutcome) text() string {
	if o.Tests != nil && !o.JUnit {
		return gotest.Decode(o.Output)
	}
	return o.Output
}

func (j *job) fail(ctx context.Context, c *cand, start time.Time, f *Failure) {
	j.mu.Lock()
	c.res.Verdict = VerdictFailed
	c.res.Failure = f
	c.res.Seconds = time.Since(start).Seconds()
	j.mu.Unlock()
	j.settle(ctx, c)
}

func (o *testOutcome) summary() string {
	if o.Tests != nil {
		return fmt.Sprintf("%d passed, %d failed, %d skipped in %.1fs", o.Tests.Passed, o.Tests.Failed, o.Tests.Skipped, o.Seconds)
	}
	return fmt.Sprintf("exit %d in %.1fs", o.Exit, o.Seconds)
}

// excerpts joins the recorded output of the first five named tests or
// packages that have some (a run keeps the output of its first
// gotest.MaxFailureExcerpts failures only), falling back to the tail of the
// whole output. A subtest whose output a test shown before it already
// holds is not shown again: a parent's output collects its failing
// subtests' (gotest.Parser), and the demo's broken candidate showed each
// of its four failures twice.
func excerpts(run *gotest.Run, names []string, whole string) string {
	var b strings.Builder
	var shown []string // the names shown
	for _, n := range names {
		s := strings.TrimRight(run.Output[n], "\n")
		if s == "" || len(shown) >= 5 || heldBy(run, shown, n, s) {
			continue
		}
		fmt.Fprintf(&b, "--- %s\n%s\n", n, s)
		shown = append(shown, n)
	}
	if b.Len() == 0 {
		return tail(gotest.Decode(whole), 40)
	}
	return capString(excerpt.Strip(b.String()), 8<<10)
}

// heldBy says whether the output of one of shown that is an ancestor of
// test n holds n's output s.
func heldBy(run *gotest.Run, shown []string, n, s string) bool {
	for _, m := range shown {
		if strings.HasPrefix(n, m+"/") && strings.Contains(run.Output[m], s) {
			return true
		}
	}
	return false
}

func first(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// tail is the last lines of s, without escape sequences, at most 8 KiB.
func tail(s string, lines int) string {
	return capString(proc.Tail([]byte(excerpt.Strip(s)), lines), 8<<10)
}

func capString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// isGoTestJSON reports whether a test command line produces test2json events.
func isGoTestJSON(cmd string) bool {
	f := strings.Fields(cmd)
	return len(f) >= 2 && f[0] == "go" && f[1] == "test" && strings.Contains(cmd, "-json")
}
