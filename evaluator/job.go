package evaluator

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/calibrate"
	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/evaluator/gobench"
	"github.com/optimizer-dev/optimizer/evaluator/measure"
	"github.com/optimizer-dev/optimizer/evaluator/sandbox"
	"github.com/optimizer-dev/optimizer/evaluator/testedits"
	"github.com/optimizer-dev/optimizer/evaluator/testjudge"
	"github.com/optimizer-dev/optimizer/profiler"
	"github.com/optimizer-dev/optimizer/store"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// Pool is what a job needs from a pool of slots. *worktreepool.Pool implements it.
type Pool interface {
	Acquire(ctx context.Context) (*worktreepool.Slot, error)
	AcquireExclusive(ctx context.Context) ([]*worktreepool.Slot, error)
	Release(s *worktreepool.Slot)
	// Size is the most slots the job may hold at once: its slot count.
	Size() int
}

var _ Pool = (*worktreepool.Pool)(nil)

// Errors a caller can recognise.
var (
	ErrNoCandidates = errors.New("no candidates")
	ErrNoTest       = errors.New("no test command: pass --test, or run in a Go module")
	// ErrNotRecorded: the job ran, and its report is whole, but the store
	// could not record all of it (a full disk, say).
	ErrNotRecorded = errors.New("the job's results could not all be recorded in the store")
	// ErrEnvironment: something that is no candidate's doing (no slot
	// could be made, base's tests could not run) stopped candidates from
	// being judged. They are left unjudged, not failed.
	ErrEnvironment = errors.New("the environment failed the job, not its candidates")
	// ErrBenchFilter stops a job whose --bench-filter selects no benchmark.
	ErrBenchFilter = measure.ErrBenchFilter
	// ErrMetric stops a job whose --metric its benchmarks cannot measure.
	ErrMetric = errors.New("no such metric here")
)

// job is the state of one Run. Its fields are set before the phases start;
// per-candidate state lives in cands and is guarded by mu where phases overlap.
type job struct {
	id      string
	opts    Options
	pool    Pool
	size    int // the pool's Size, at least 1: the slots asked for
	db      *store.DB
	log     *slog.Logger
	start   time.Time
	goMod   bool                    // the repo root holds a go.mod
	test    string                  // effective test command
	goTest  bool                    // test output is go test -json
	reports []string                // JUnit XML reports the test command writes (reports.go)
	bench   string                  // effective bench command; "" means Go benchmarks
	noBench bool                    // no benchmark phase
	tmp     string                  // scratch directory for binaries, removed at the end
	treeID  treeIDFunc              // a candidate's content id: candidate.TreeID
	abort   context.CancelCauseFunc // stops the job with a cause, as a slot that cannot be prepared does
	// cancelled is Run's ctx.Done(): once closed, emit no longer waits for
	// a caller that may have stopped reading events.
	cancelled <-chan struct{}

	// benchReports are the files the bench command writes its results to
	// (reports.go).
	benchReports []string

	base    *baseline     // set by startBaseline, before any candidate's tests start
	sandbox SandboxReport // whether processes run sandboxed, and why not
	jail    *sandbox.Jail // what every sandbox shares; nil: no sandbox

	mu             sync.Mutex
	cands          []*cand
	done           int
	warnings       []string
	fault          error // the first fault of the environment: see jobFault
	storeFails     int   // store writes that failed
	storeErr       error // the first of them
	noise          *Noise
	profileSummary *profiler.Summary
	profileNote    string // why the winner has no profile, when it has none by design
	warned         map[string]bool
	spans          map[string]*span // each phase's wall time, by name

	// Phase 2 runs one candidate at a time; these caches need no lock.
	baseBins map[string]string          // import path -> base test binary
	baseAlts map[string]string          // import path -> base test binary in the second code layout ("": none)
	calib    *calibrate.Calibrator      // the benchmarks' iteration counts at base (sampler_go.go)
	covered  map[string][]gobench.Trace // import path -> what its benchmarks execute at base (scope.go)
	// host is the machine phase 2 runs on, read once when it starts.
	host store.Host
	// benchKey names the job's benchmark settings and machine (benchKey);
	// "" when it benchmarks nothing.
	benchKey string
	// keepChanges records each passing candidate's change in the store, for
	// a phase 2 on another machine (shard runs, and Bench itself).
	keepChanges bool

	// binHashes keeps each test binary's hash for the result cache (cache.go).
	binHashes map[string]string
	goEnv     *string // go env -json, for the result cache's source keys; nil: not read yet
	// stop, once set, is a problem of the whole job found in phase 2 (a
	// filter that selects nothing): no further candidate is measured, and
	// Run returns it.
	stop error
}

// cand is one candidate's state during a job.
type cand struct {
	idx  int
	spec candidate.Candidate // the candidate as given: name, patch, files
	res  CandidateResult
	// measured keeps what phase 2 built, so that profiling can reuse it.
	measured *measured
	// Set by phase 1's first staging (judge.go), read-only after it.
	restore *restore                // base's test files laid back over it; nil: its own judge it
	contrib *testedits.Contribution // the tests it adds or changes; nil: none
	// samplesKey is the result cache's key of its benchmark pairs, set by
	// phase 2 once its binaries are built; "": its pairs are not cached.
	samplesKey string
	// sourceKey keys the same pairs by the sources that make its binaries;
	// unbuilt is set when they settled it with no binary built.
	sourceKey string
	unbuilt   bool
	// scopeSaid is set once phase 2 said which benchmarks measure it
	// (sayScope).
	scopeSaid bool
}

// Run evaluates opts.Candidates against opts.Base and returns the report.
// It records the job, its candidates and every result in db as they finish.
// Run returns an error only for a bad job or a broken store; a bad candidate
// gets a failed verdict instead. When ctx is cancelled, Run returns the
// partial report with state "interrupted" together with ctx's error.
func Run(ctx context.Context, pool Pool, db *store.DB, opts Options) (*Report, error) {
	return run(ctx, pool, db, opts, candidate.TreeID)
}

// treeIDFunc computes a candidate's content id: candidate.TreeID, or in
// tests one that holds a candidate's resolve back.
type treeIDFunc func(ctx context.Context, repo, base string, c candidate.Candidate) (string, error)

// run is Run with the content id function given.
func run(ctx context.Context, pool Pool, db *store.DB, opts Options, treeID treeIDFunc) (*Report, error) {
	j, err := newJob(ctx, pool, db, opts)
	if err != nil {
		return nil, err
	}
	j.treeID = treeID
	defer os.RemoveAll(j.tmp)
	j.cancelled = ctx.Done()
	if err := j.record(ctx); err != nil {
		return nil, err
	}
	j.emit(Event{Kind: EventJobStart, Total: len(j.cands), Message: j.id, History: j.history(ctx), Slots: j.size,
		MinSpeedup: j.opts.MinSpeedup})
	jctx, abort := context.WithCancelCause(ctx)
	defer abort(nil)
	j.abort = abort
	stopWatch := j.watchMachine(jctx)
	j.log.Debug("job start", "candidates", len(j.cands), "base", j.opts.Base, "slots", j.size, "test", j.test)
	j.begin(PhaseBehavior) // the baseline's tests start now
	base := j.startBaseline(jctx)
	defer base.stop()
	err = j.phases(jctx, base)
	stopWatch()
	var setupErr *SetupError
	if cause := context.Cause(jctx); ctx.Err() == nil && errors.As(cause, &setupErr) {
		err = setupErr // a slot could not be prepared: the job stopped
	}
	if ferr := j.faulted(); ferr != nil && err == nil {
		err = ferr
	}
	if serr := j.allSkipped(); serr != nil && err == nil {
		err = serr
		j.warn(ctx, "%v", serr)
	}
	if n := j.slots(); n < j.size && n > 0 {
		j.warn(ctx, "only %d of the %d slots asked for could be made (-v says why): the job ran on %d", n, j.size, n)
	}
	rep := j.report()
	state := "finished"
	switch {
	case ctx.Err() != nil:
		state = "interrupted"
		err = ctx.Err()
	case err != nil:
		state = "failed"
	}
	rep.State = state
	j.log.Debug("job end", "state", state, "took", since(j.start))
	j.finish(rep, err)
	if uerr := j.unrecorded(); uerr != nil {
		j.mu.Lock()
		rep.Warnings = append([]string(nil), j.warnings...)
		j.mu.Unlock()
		if err == nil {
			err = uerr
		}
	}
	j.emit(Event{Kind: EventJobDone, Total: len(j.cands), Done: j.done, Message: state})
	return rep, err
}

func newJob(ctx context.Context, pool Pool, db *store.DB, opts Options) (*job, error) {
	if len(opts.Candidates) == 0 {
		return nil, ErrNoCandidates
	}
	opts = withDefaults(opts)
	j := &job{
		id:     cmp.Or(opts.ID, newJobID()),
		opts:   opts,
		pool:   pool,
		size:   max(1, pool.Size()),
		treeID: candidate.TreeID,
		db:     db,
		start:  time.Now(),

		spans:    map[string]*span{},
		baseBins: map[string]string{},
		baseAlts: map[string]string{},
		covered:  map[string][]gobench.Trace{},

		binHashes: map[string]string{},
	}
	j.log = opts.Logger.With("component", "evaluator", "job", j.id)
	j.calib = &calibrate.Calibrator{Target: calibrateTarget, Args: opts.BenchArgs, Key: j.calibKey, Cached: j.cachedCalibration,
		Put: func(ctx context.Context, key string, counts []gobench.Count) {
			j.putCache(ctx, store.CacheCalibration, key, "", counts)
		},
		Warn: j.warn}
	if _, err := os.Stat(filepath.Join(opts.Repo, "go.mod")); err == nil {
		j.goMod = true
	}
	j.test = opts.Test
	if j.test == "" {
		if !j.goMod {
			return nil, ErrNoTest
		}
		j.test = "go test -json ./..."
	}
	j.goTest = testjudge.IsGoTestJSON(j.test)
	reports, err := testReports(opts, j.test, j.goTest)
	if err != nil {
		return nil, err
	}
	j.reports = reports
	if j.benchReports, err = benchReports(opts); err != nil {
		return nil, err
	}
	switch opts.Bench {
	case "none":
		j.noBench = true
	case "":
		j.noBench = !j.goMod
	default:
		j.bench = opts.Bench
	}
	if !opts.Shard.IsZero() {
		j.noBench = true // optimizer bench measures, on one host, after a merge
		j.keepChanges = true
	}
	if !j.noBench {
		j.benchKey = benchKey(opts)
		if err := j.checkBenchFilter(ctx); err != nil {
			return nil, err
		}
	}
	if err := j.setupSandbox(ctx); err != nil {
		return nil, err
	}
	if err := j.preflight(ctx); err != nil {
		return nil, err
	}
	if opts.Setup != "" || len(opts.CopyFiles) > 0 {
		j.pool = &preparedPool{Pool: pool, j: j}
	}
	tmp, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", scratchPrefix, os.Getpid()))
	if err != nil {
		return nil, fmt.Errorf("make scratch dir: %w", err)
	}
	j.tmp = tmp
	for i, c := range opts.Candidates {
		j.cands = append(j.cands, &cand{idx: i, spec: c, res: CandidateResult{
			Name:        c.Name,
			Source:      c.Source,
			Parent:      c.Parent,
			Explanation: c.Explanation,
			Verdict:     VerdictPending,
			Files:       c.Paths(),
		}})
	}
	return j, nil
}

// WithDefaults returns o with its zero fields at the defaults Run gives
// them: what a job started with o runs with.
func WithDefaults(o Options) Options { return withDefaults(o) }

func withDefaults(o Options) Options {
	if o.Kind == "" {
		o.Kind = "run"
	}
	if o.CPUs < 1 {
		o.CPUs = runtime.NumCPU()
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MinSpeedup <= 0 {
		o.MinSpeedup = DefaultMinSpeedup
	}
	if o.MinPairs <= 0 {
		o.MinPairs = DefaultMinPairs
	}
	if o.MaxPairs < o.MinPairs {
		o.MaxPairs = max(DefaultMaxPairs, o.MinPairs)
	}
	if o.Budget <= 0 {
		o.Budget = DefaultBudget
	}
	if o.Metric == "" {
		o.Metric = MetricWall
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

func newJobID() string {
	var b [6]byte
	rand.Read(b[:])
	return time.Now().UTC().Format("20060102-150405-") + hex.EncodeToString(b[:])
}

// phases runs behavior, benchmark, select and profile in order.
func (j *job) phases(ctx context.Context, base *baseline) error {
	if err := j.behavior(ctx, base); err != nil {
		return err
	}
	j.crossTests(ctx)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if j.noBench && j.crossing() {
		j.settleRest(ctx) // behaveOne left them for the contributed tests
	}
	return j.measureAndSelect(ctx)
}

// measureAndSelect is phase 2, selection and the winner's profile.
func (j *job) measureAndSelect(ctx context.Context) error {
	err := j.benchmark(ctx)
	j.warnInterference(ctx)
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	winner := j.selectWinner()
	if winner != nil {
		j.log.Debug("winner", "candidate", winner.spec.Name, "speedup", winner.res.Speedup)
	}
	if winner != nil && (j.opts.Profile || j.opts.ProfileCmd != "") {
		j.phase(ctx, PhaseProfile)
		j.begin(PhaseProfile)
		j.profile(ctx, winner)
		j.end(PhaseProfile)
	}
	return nil
}

// emit sends an event to the caller, if it listens. Until Run's ctx is
// done it waits for the caller to take it. After, it gives the event to a
// caller waiting for one and otherwise drops it. So a caller that stopped
// reading cannot block a slot holder, or the job's end.
func (j *job) emit(e Event) {
	if j.opts.Events == nil {
		return
	}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	if e.Total == 0 {
		e.Total = len(j.cands)
	}
	select {
	case j.opts.Events <- e:
		return
	default:
	}
	select {
	case j.opts.Events <- e:
	case <-j.cancelled:
	}
}

func (j *job) phase(ctx context.Context, name string) {
	j.emit(Event{Kind: EventPhase, Phase: name})
	j.event(ctx, "phase", "", name)
}

func (j *job) warn(ctx context.Context, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	j.mu.Lock()
	j.warnings = append(j.warnings, msg)
	j.mu.Unlock()
	j.log.Warn(msg)
	j.emit(Event{Kind: EventWarning, Message: msg})
	j.event(ctx, "warning", "", msg)
}

// warnOnce reports whether the warning of this kind is the job's first.
func (j *job) warnOnce(kind string) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.warned[kind] {
		return false
	}
	if j.warned == nil {
		j.warned = map[string]bool{}
	}
	j.warned[kind] = true
	return true
}

// settle gives a candidate its final verdict: it is recorded and reported at once.
func (j *job) settle(ctx context.Context, c *cand) {
	j.mu.Lock()
	j.done++
	done := j.done
	c.res.Live = nil // its verdict is final
	res := c.res
	j.mu.Unlock()
	j.log.Debug("verdict", "candidate", c.spec.Name, "verdict", res.Verdict, "took", dur(res.Seconds))
	j.saveCandidate(ctx, c)
	j.emit(Event{Kind: EventDone, Candidate: c.spec.Name, Index: c.idx, Done: done, Result: &res})
}

// report assembles the report in candidate order.
func (j *job) report() *Report {
	j.mu.Lock()
	defer j.mu.Unlock()
	rep := &Report{
		Job:        j.id,
		Repo:       j.opts.Repo,
		Base:       j.opts.Base,
		Parallel:   j.slots(),
		MinSpeedup: j.opts.MinSpeedup,
		Started:    j.start,
		Seconds:    time.Since(j.start).Seconds(),
		Warnings:   append([]string(nil), j.warnings...),
	}
	for _, c := range j.cands {
		rep.Candidates = append(rep.Candidates, c.res)
		if c.res.Verdict == VerdictWinner {
			name := c.res.Name
			rep.Winner = &name
		}
	}
	rep.Profile = j.profileSummary
	rep.ProfileNote = j.profileNote
	rep.Phases = j.phaseTimes()
	rep.Noise = j.noise
	sb := j.sandbox
	rep.Sandbox = &sb
	return rep
}
