package evaluator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/optimizer-dev/optimizer/evaluator/goenv"
	"github.com/optimizer-dev/optimizer/evaluator/testjudge"
	"github.com/optimizer-dev/optimizer/excerpt"
	"github.com/optimizer-dev/optimizer/proc"
	"github.com/optimizer-dev/optimizer/store"
)

// BaseTestError is the job's error when the test command cannot run at
// base (testjudge.CannotRun).
type BaseTestError = testjudge.BaseError

// baseline is the base's test outcome, shared by every phase-1 worker. Its
// tests start with the job, before candidates are resolved: they need no
// candidate, and so the first test runs as soon as the first slot exists.
type baseline struct {
	once   sync.Once
	done   chan struct{}
	out    *testjudge.Outcome
	err    error
	cancel context.CancelFunc // stops the run; nil when the outcome was cached
	wg     sync.WaitGroup     // the run's goroutine
}

// startBaseline starts the baseline's tests, unless the store has their
// outcome for this base, command and environment.
func (j *job) startBaseline(ctx context.Context) *baseline {
	b := &baseline{done: make(chan struct{})}
	j.base = b
	if out, ok := j.cachedBaseline(ctx); ok && !j.opts.NoCache {
		j.log.Debug("baseline cached", "result", out.Summary())
		b.set(out, nil)
		j.emit(Event{Kind: EventBaseline, Message: "baseline tests (cached): " + out.Summary(), AtBase: dur(out.Seconds)})
		return b
	}
	bctx, cancel := context.WithCancel(ctx)
	b.cancel = cancel
	b.wg.Go(func() {
		defer func() {
			// A panic here is the job's fault, not a candidate's: every
			// candidate waiting for base gets it.
			if r := recover(); r != nil {
				j.log.Error("panic in the baseline's tests", "panic", r, "stack", string(debug.Stack()))
				b.set(nil, fmt.Errorf("baseline tests: the optimizer panicked: %v", r))
			}
		}()
		j.runBaseline(bctx, b)
	})
	return b
}

// stop cancels the baseline's tests if they still run, as when no
// candidate needs them, and waits for them to end.
func (b *baseline) stop() {
	if b.cancel != nil {
		b.cancel()
	}
	b.wg.Wait()
}

func (b *baseline) set(out *testjudge.Outcome, err error) {
	b.once.Do(func() { b.out, b.err = out, err; close(b.done) })
}

func (b *baseline) wait(ctx context.Context) (*testjudge.Outcome, error) {
	select {
	case <-b.done:
		return b.out, b.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (j *job) runBaseline(ctx context.Context, base *baseline) {
	if j.opts.MemLimit > 0 && !proc.CanLimitMemory() {
		j.warn(ctx, "no memory cap: prlimit (util-linux) is not installed, so tests run without one")
	}
	j.sandboxNotes(ctx)
	slot, err := j.acquireForBase(ctx)
	if err != nil {
		base.set(nil, fmt.Errorf("acquire a slot for the baseline: %w", err))
		return
	}
	j.download(ctx, slot)
	j.log.Debug("baseline tests start", "slot", slot.Name())
	out, err := func() (*testjudge.Outcome, error) {
		defer j.pool.Release(slot)
		return j.runTests(ctx, slot, nil)
	}()
	if err == nil && out.TimedOut && j.oversubscribed() && ctx.Err() == nil {
		out, err = j.baseAlone(ctx)
	}
	if err == nil && ctx.Err() == nil {
		j.log.Debug("baseline tests end", "took", dur(out.Seconds), "result", out.Summary())
		if bte := testjudge.CannotRun(out); bte != nil {
			base.set(nil, bte)
			return
		}
	}
	switch {
	case ctx.Err() != nil:
		base.set(nil, ctx.Err()) // stopped: nothing to say of base
		return
	case err != nil:
		base.set(nil, fmt.Errorf("run baseline tests: %w", err))
		return
	}
	if len(j.reports) > 0 && !out.JUnit && !out.TimedOut {
		j.warn(ctx, "%s at base: candidates are judged by its exit code, not test by test", out.NoReport)
	}
	if out.TimedOut {
		j.warn(ctx, "the baseline tests timed out after %s: candidates are compared per test only", j.opts.Timeout)
	} else if out.Exit != 0 {
		j.warn(ctx, "the test command fails at base (exit %d): candidates are judged only on tests that pass at base", out.Exit)
	}
	// Judging reads only the statuses of base's tests: keep no more of its
	// raw output, in memory or in the cache, than a message shows.
	out.Output = excerpt.Tail(out.Output, 40)
	base.set(out, nil)
	j.storeTests(ctx, "", out)
	j.putBaseline(ctx, out)
	j.emit(Event{Kind: EventBaseline, Message: "baseline tests: " + out.Summary(), AtBase: dur(out.Seconds)})
}

// The baseline cache: keyed by base commit, test command and the environment
// that changes what tests do.
func (j *job) baselineKey() string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s/%s\x00%s", j.opts.Base, j.test, runtime.GOOS, runtime.GOARCH, runtime.Version())
	if j.opts.Setup != "" || len(j.opts.CopyFiles) > 0 {
		// What setup makes, and the files copied in, change what tests do.
		// The files are hashed as they are now; what setup makes is known
		// only by its command.
		fmt.Fprintf(h, "\x00setup=%s", j.opts.Setup)
		for _, f := range j.opts.CopyFiles {
			b, _ := os.ReadFile(filepath.Join(j.opts.Repo, filepath.FromSlash(f)))
			fmt.Fprintf(h, "\x00copy=%s\x00%x", f, sha256.Sum256(b))
		}
	}
	for _, k := range []string{"GOFLAGS", "GOOS", "GOARCH", "CGO_ENABLED", "GOEXPERIMENT", "GOTOOLCHAIN", "PATH"} {
		fmt.Fprintf(h, "\x00%s=%s", k, j.getenv(k))
	}
	for _, kv := range j.opts.Env { // what else the job's commands get: PYTHONPATH, say
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "GOFLAGS", "GOOS", "GOARCH", "CGO_ENABLED", "GOEXPERIMENT", "GOTOOLCHAIN", "PATH":
		default:
			fmt.Fprintf(h, "\x00env %s", kv)
		}
	}
	if len(j.reports) > 0 {
		fmt.Fprintf(h, "\x00reports=%s", strings.Join(j.reports, "\x00"))
	}
	if tags := goenv.BuildTags(j.opts.BuildFlags); tags != "" {
		fmt.Fprintf(h, "\x00tags=%s", tags) // tests build with them (goenv.TestFlags)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (j *job) cachedBaseline(ctx context.Context) (*testjudge.Outcome, bool) {
	b, err := j.db.Baseline(ctx, j.baselineKey())
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			j.log.Warn("read the baseline cache", "err", err)
		}
		return nil, false
	}
	var out testjudge.Outcome
	if err := json.Unmarshal(b, &out); err != nil {
		j.log.Warn("unreadable baseline cache entry: the baseline's tests run again", "err", err)
		return nil, false
	}
	return &out, true
}

func (j *job) putBaseline(ctx context.Context, out *testjudge.Outcome) {
	if out.TimedOut || ctx.Err() != nil {
		return
	}
	b, err := json.Marshal(out)
	if err == nil {
		err = j.db.PutBaseline(context.WithoutCancel(ctx), j.baselineKey(), b)
	}
	if err != nil {
		j.notRecorded("the baseline cache", err)
	}
}
