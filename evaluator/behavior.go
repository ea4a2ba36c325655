package evaluator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/evaluator/gotest"
	"github.com/optimizer-dev/optimizer/evaluator/reportfiles"
	"github.com/optimizer-dev/optimizer/evaluator/sandbox"
	"github.com/optimizer-dev/optimizer/evaluator/testjudge"
	"github.com/optimizer-dev/optimizer/excerpt"
	"github.com/optimizer-dev/optimizer/proc"
	"github.com/optimizer-dev/optimizer/result"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

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
	if f := testjudge.Judge(b, out); f != nil {
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
func (j *job) testIn(ctx context.Context, slot *worktreepool.Slot, c *cand) (*testjudge.Outcome, *Failure) {
	start := time.Now()
	if err := j.stageJudged(ctx, slot, c); err != nil {
		j.log.Debug("stage failed", "candidate", c.spec.Name, "slot", slot.Name(), "err", err)
		return nil, &Failure{Kind: FailApply, Message: err.Error()}
	}
	if sandbox.TouchesModules(c.spec.Paths()) {
		j.download(ctx, slot)
	}
	j.log.Debug("candidate staged", "candidate", c.spec.Name, "slot", slot.Name(), "took", since(start))
	j.log.Debug("tests start", "candidate", c.spec.Name, "slot", slot.Name())
	out, err := j.runTests(ctx, slot, c)
	if err != nil {
		return nil, &Failure{Kind: FailError, Message: err.Error()}
	}
	j.log.Debug("tests end", "candidate", c.spec.Name, "took", dur(out.Seconds), "result", out.Summary(), "timed_out", out.TimedOut)
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
			Output:  excerpt.Tail(out.Text(), 40)}
		if building && ctx.Err() == nil {
			f.Message += "; no test had started: it compiles, so building alone took longer than the timeout (is the machine loaded?)"
		}
		if unfinished := testjudge.Failing(out.Tests); len(unfinished) > 0 {
			// go test -json: the tests still running when it was killed
			// count as failed; their own output says more than the stream.
			f.Tests = unfinished
			f.Message += "; still running: " + strings.Join(testjudge.First(gotest.Names(unfinished), 5), ", ")
			f.Output = testjudge.Excerpts(out.Tests, unfinished, out.Output)
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
		Output:  testjudge.Excerpts(run, run.BuildFailed, string(res.Output))}
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
func (j *job) runTests(ctx context.Context, slot *worktreepool.Slot, c *cand) (*testjudge.Outcome, error) {
	gotmp, done, err := j.goTmpDir()
	if err != nil {
		return nil, err
	}
	defer done()
	cmd := proc.Cmd{Dir: slot.Dir(), Env: j.testEnv(slot.Env(), gotmp), Args: proc.Shell(j.test), Timeout: j.opts.Timeout, CPU: -1,
		MemLimit: j.opts.MemLimit, Sandbox: j.box(slot, nil, []string{gotmp})}
	var parser *gotest.Parser
	stdout := &testjudge.Counter{}
	cmd.Stdout = stdout
	if j.goTest {
		parser = gotest.NewParser()
		stdout.W = parser
	}
	stopWatch := func() {}
	if c != nil {
		stopWatch = j.watchStuck(ctx, c, parser)
	}
	if err := reportfiles.Clear(slot.Dir(), j.reports); err != nil {
		return nil, err
	}
	res, err := proc.Run(ctx, cmd)
	stopWatch()
	if err != nil {
		return nil, err
	}
	out := &testjudge.Outcome{Exit: res.ExitCode, TimedOut: res.TimedOut, Output: string(res.Output), Seconds: res.Wall.Seconds(),
		Stdout: stdout.N}
	if parser != nil {
		out.Tests = parser.Result()
	}
	if len(j.reports) > 0 {
		out.Tests, out.NoReport = testjudge.ReadJUnit(slot.Dir(), j.reports)
		out.JUnit = out.Tests != nil
	}
	return out, nil
}

func (j *job) fail(ctx context.Context, c *cand, start time.Time, f *Failure) {
	j.mu.Lock()
	c.res.Verdict = VerdictFailed
	c.res.Failure = f
	c.res.Seconds = time.Since(start).Seconds()
	j.mu.Unlock()
	j.settle(ctx, c)
}
