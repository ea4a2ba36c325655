package optimize

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/jobspec"
	"github.com/optimizer-dev/optimizer/profiler"
	"github.com/optimizer-dev/optimizer/store"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// Defaults for Loop.
const (
	DefaultRounds   = 3
	DefaultPerRound = 2
	DefaultRepairs  = 2
	// RemeasureFactor is how much longer the winner's re-measurement runs
	// than a round's: its pairs and its budget.
	RemeasureFactor = 2
)

var _ Workspace = (*worktreepool.Slot)(nil)

// Loop is one run of the optimisation loop: rounds of generate, evaluate,
// then repair what failed and refine what is best. It judges nothing
// itself: every round's candidates are one job of the evaluator, and the
// final winner is measured again in a job of its own. Set the fields, then
// call Run once.
type Loop struct {
	Repo, Base string
	Generators []Generator
	Targets    []Target
	Rounds     int           // 0 is DefaultRounds
	PerRound   int           // candidates asked of a stdout generator per target and round; 0 is DefaultPerRound
	Repairs    int           // repairs of a failed candidate's line; 0 is none
	Budget     time.Duration // wall time for the whole loop; 0 is none
	Parallel   int           // generator calls at once; 0 is 1

	// Holdout is the share of the benchmarks that execute the targets
	// hidden from every generator (holdout.go); 0 is none. HoldoutMin is
	// the fewest such benchmarks for any to be held out (0 is 2), and
	// HoldoutSeed picks which (0: one from the base commit).
	Holdout     float64
	HoldoutMin  int
	HoldoutSeed uint64

	// Spec is the template of every job's settings: the test and bench
	// commands, timeouts, pairs. A job's spec may differ (its pairs, budget
	// and benchmark filter); Options makes the job's options from it, which
	// the store records. The loop then sets Candidates, Kind and the deadline.
	Spec    jobspec.Spec
	Options func(jobspec.Spec) (evaluator.Options, error)
	Pool    evaluator.Pool // slots, for the jobs and for edit-in-place generators
	DB      *store.DB

	// Evaluate runs one job; nil is evaluator.Run on Pool and DB. The CLI
	// sets it to show each job's progress.
	Evaluate func(ctx context.Context, opts evaluator.Options) (*evaluator.Report, error)
	// Progress, when set, is told what the loop does, a line at a time.
	Progress func(round int, msg string)
	Logger   *slog.Logger

	// benchmarksOf, when set, stands in for the coverage run that finds
	// the benchmarks executing the targets (tests).
	benchmarksOf func(ctx context.Context, targets []Target) ([]string, error)
}

// PrintProgress is a Loop.Progress that writes each line to w, as
// "optimize: round 2: MSG", or "optimize: MSG" outside a round.
func PrintProgress(w io.Writer) func(round int, msg string) {
	return func(round int, msg string) {
		if round > 0 {
			fmt.Fprintf(w, "optimize: round %d: %s\n", round, msg)
		} else {
			fmt.Fprintf(w, "optimize: %s\n", msg)
		}
	}
}

// entry is one candidate of the run, with where it came from and what its
// job found.
type entry struct {
	c         candidate.Candidate
	generator string
	round     int
	mode      string
	target    string
	repairs   int // repairs in its line so far
	contentID string
	jobID     string
	res       evaluator.CandidateResult
	profile   *profiler.Summary // its job's profile, when it was that job's winner
}

// run is the state of one Run.
type run struct {
	*Loop
	id      string
	start   time.Time
	log     *slog.Logger
	mu      sync.Mutex
	entries []*entry
	byName  map[string]*entry
	byTree  map[string]*entry
	named   map[string]int // candidates named so far, by generator and round
	report  *Report
	// shownFilter selects the benchmarks generators may see, and
	// judgeFilter those the re-measure judges on, when some are held out.
	shownFilter, judgeFilter string
}

// request is one call to make: a generator, and what to ask it.
type request struct {
	gen    Generator
	req    Request
	parent *entry
}

// Run runs the loop and returns its report. A generator that fails, times
// out or prints nonsense is recorded and the loop goes on. Run fails only
// when a job cannot run, the store cannot record the run, or ctx is done.
func (l *Loop) Run(ctx context.Context) (*Report, error) {
	r, err := l.begin(ctx)
	if err != nil {
		return nil, err
	}
	r.holdOut(ctx)
	reqs := r.firstRequests()
	for round := 1; round <= r.rounds(); round++ {
		if r.overBudget() {
			r.report.Stopped = "the --budget was spent"
			break
		}
		if len(reqs) == 0 {
			r.report.Stopped = "no candidate to repair or refine"
			break
		}
		fresh := r.generate(ctx, round, reqs)
		if ctx.Err() != nil {
			return r.finish(ctx, ctx.Err())
		}
		improved, err := r.judge(ctx, round, fresh)
		if err != nil {
			return r.finish(ctx, err)
		}
		reqs = r.nextRequests(round, improved)
		if round == r.rounds() {
			r.report.Stopped = fmt.Sprintf("%d rounds done", round)
		} else if !improved && !r.anyRepairs(reqs) {
			r.report.Stopped = fmt.Sprintf("round %d brought no significant improvement and nothing to repair", round)
			break
		}
	}
	if err := r.remeasure(ctx); err != nil {
		return r.finish(ctx, err)
	}
	return r.finish(ctx, nil)
}

func (l *Loop) begin(ctx context.Context) (*run, error) {
	if len(l.Generators) == 0 {
		return nil, fmt.Errorf("optimize: no generator")
	}
	if len(l.Targets) == 0 {
		return nil, fmt.Errorf("optimize: no target")
	}
	if l.Options == nil {
		return nil, fmt.Errorf("optimize: no Options")
	}
	generatorNames(l.Generators)
	lc := *l // the run may replace its targets' profiles (holdout.go)
	r := &run{Loop: &lc, id: newRunID(), start: time.Now(), byName: map[string]*entry{}, byTree: map[string]*entry{}, named: map[string]int{}}
	r.log = l.Logger
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	r.report = &Report{Run: r.id, Repo: l.Repo, Base: l.Base, Started: r.start}
	for _, t := range l.Targets {
		r.report.Targets = append(r.report.Targets, t.Name)
	}
	// Strings, integers and a bool: the marshalling cannot fail.
	cfg, _ := json.Marshal(struct {
		Generators []Generator `json:"generators"`
		Targets    []string    `json:"targets"`
		Rounds     int         `json:"rounds"`
		PerRound   int         `json:"per_round"`
		Repairs    int         `json:"repairs"`
		Budget     string      `json:"budget"`
	}{l.Generators, r.report.Targets, r.rounds(), r.perRound(), l.Repairs, l.Budget.String()})
	if err := l.DB.StartOptimizeRun(ctx, store.OptimizeRun{ID: r.id, Repo: l.Repo, Base: l.Base, Config: cfg}); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *run) rounds() int {
	if r.Rounds > 0 {
		return r.Rounds
	}
	return DefaultRounds
}

func (r *run) perRound() int {
	if r.PerRound > 0 {
		return r.PerRound
	}
	return DefaultPerRound
}

func (r *run) overBudget() bool { return r.Budget > 0 && time.Since(r.start) >= r.Budget }

func (r *run) say(round int, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	r.log.Info(msg, "round", round)
	if r.Progress != nil {
		r.Progress(round, msg)
	}
}

// firstRequests ask every generator for candidates for every target.
func (r *run) firstRequests() []request {
	var out []request
	for _, g := range r.Generators {
		for _, t := range r.Targets {
			out = append(out, request{gen: g, req: r.newRequest(ModeGenerate, g, t, nil)})
		}
	}
	return out
}

func (r *run) newRequest(mode string, g Generator, t Target, parent *entry) Request {
	req := Request{Schema: Schema, Mode: mode, Count: r.perRound(), Generator: g.Name, Repo: r.Repo, Base: r.Base, Target: t}
	if g.Edit {
		req.Count = 1
	}
	if r.heldOut() {
		req.Benchmarks, req.HeldOut = r.report.Holdout.Shown, len(r.report.Holdout.HeldOut)
	} else if f := r.Spec.BenchFilter; f != "" {
		req.Benchmarks = []string{f}
	}
	if parent != nil {
		req.Parent = parentOf(parent.c, parent.res, parent.profile, r.ancestry(parent))
	}
	return req
}

// ancestry names e's ancestors, oldest first.
func (r *run) ancestry(e *entry) []string {
	var out []string
	for p := r.byName[e.c.Parent]; p != nil && len(out) < 100; p = r.byName[p.c.Parent] {
		out = append(out, p.c.Name)
	}
	slices.Reverse(out)
	return out
}

func (r *run) targetByName(name string) Target {
	for _, t := range r.Targets {
		if t.Name == name {
			return t
		}
	}
	return r.Targets[0]
}

// generate makes the round's calls, at most Parallel at once, and returns
// the new candidates, named and with their lineage, in request order.
func (r *run) generate(ctx context.Context, round int, reqs []request) []*entry {
	results := make([][]*entry, len(reqs))
	g := new(errgroup.Group)
	g.SetLimit(max(1, r.Parallel))
	for i, q := range reqs {
		q.req.Round = round
		g.Go(func() error {
			results[i] = r.call(ctx, round, q)
			return nil
		})
	}
	g.Wait()
	// Named in request order, whichever call ended first: gen-r2-1, gen-r2-2.
	var out []*entry
	for _, es := range results {
		for _, e := range es {
			prefix := fmt.Sprintf("%s-r%d", e.generator, round)
			r.named[prefix]++
			e.c.Name = fmt.Sprintf("%s-%d", prefix, r.named[prefix])
			out = append(out, e)
		}
	}
	return out
}

// call runs one request and records it.
func (r *run) call(ctx context.Context, round int, q request) []*entry {
	r.say(round, "%s: %s %s", q.gen.Name, q.req.Mode, describe(q))
	var c call
	if q.gen.Edit {
		c = r.callEdit(ctx, q)
	} else {
		c = r.callStdout(ctx, q)
	}
	parent := ""
	if q.parent != nil {
		parent = q.parent.c.Name
	}
	rec := store.GeneratorCall{RunID: r.id, Round: round, Generator: q.gen.Name, Mode: q.req.Mode, Target: q.req.Target.Name,
		Parent: parent, Request: c.request, ExitCode: c.exit, Seconds: c.seconds, Stderr: c.stderr, Candidates: len(c.cands)}
	if c.err != nil {
		rec.Error = c.err.Error()
		rec.Candidates = 0
		r.say(round, "%s: %s", q.gen.Name, c.err)
	}
	if err := r.DB.AddGeneratorCall(context.WithoutCancel(ctx), rec); err != nil {
		r.warn(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.report.stats(q.gen.Name)
	st.Calls++
	st.Seconds += c.seconds
	r.report.GeneratorSeconds += c.seconds
	if c.err != nil {
		st.FailedCalls++
		return nil
	}
	var out []*entry
	for _, cand := range c.cands {
		cand.Parent = parent
		e := &entry{c: cand, generator: q.gen.Name, round: round, mode: q.req.Mode, target: q.req.Target.Name}
		if q.parent != nil {
			e.repairs = q.parent.repairs
			if q.req.Mode == ModeRepair {
				e.repairs++
			}
		}
		out = append(out, e)
	}
	return out
}

// callStdout runs a stdout generator in an empty directory of its own: the
// request names the repository, which it may read but must not write.
func (r *run) callStdout(ctx context.Context, q request) call {
	dir, err := os.MkdirTemp("", "optimizer-generator-")
	if err != nil {
		return call{err: fmt.Errorf("make the generator's directory: %w", err)}
	}
	defer os.RemoveAll(dir)
	return runStdout(ctx, q.gen, q.req, dir)
}

// callEdit runs an edit-in-place generator in a slot of its own, with the
// parent staged for a repair or a refine.
func (r *run) callEdit(ctx context.Context, q request) call {
	s, err := r.Pool.Acquire(ctx)
	if err != nil {
		return call{err: fmt.Errorf("acquire a slot: %w", err)}
	}
	defer r.Pool.Release(s)
	if p := q.parent; p != nil {
		if len(p.c.Patch) > 0 {
			if err := s.Apply(ctx, p.c.Patch); err != nil {
				return call{err: fmt.Errorf("stage the parent %s: %w", p.c.Name, err)}
			}
		}
		if err := s.WriteFiles(p.c.Files, p.c.Deleted); err != nil {
			return call{err: fmt.Errorf("stage the parent %s: %w", p.c.Name, err)}
		}
	}
	return runEdit(ctx, q.gen, q.req, s)
}

func describe(q request) string {
	if q.parent != nil {
		return q.parent.c.Name
	}
	return q.req.Target.Name
}

func (r *run) warn(err error) {
	r.log.Warn("record the run", "err", err)
	r.mu.Lock()
	r.report.Warnings = append(r.report.Warnings, err.Error())
	r.mu.Unlock()
}

// judge evaluates the round's candidates in one job, after setting aside
// those whose tree an earlier candidate of the run already had. It reports
// whether the round's best is a significant improvement on the best so far.
func (r *run) judge(ctx context.Context, round int, fresh []*entry) (bool, error) {
	var todo []*entry
	for _, e := range fresh {
		id, err := candidate.TreeID(ctx, r.Repo, r.Base, e.c)
		if err == nil {
			e.contentID = id
			if prev := r.byTree[id]; prev != nil {
				e.res = evaluator.CandidateResult{Name: e.c.Name, Verdict: evaluator.VerdictDuplicate, DuplicateOf: prev.c.Name}
				r.record(ctx, e)
				r.report.stats(e.generator).Duplicates++
				r.say(round, "%s: the same tree as %s: not judged again", e.c.Name, prev.c.Name)
				continue
			}
			r.byTree[id] = e
		}
		todo = append(todo, e)
	}
	rd := RoundSummary{Round: round, Candidates: len(fresh)}
	defer func() { r.report.Rounds = append(r.report.Rounds, rd) }()
	if len(todo) == 0 {
		return false, nil
	}
	spec := r.Spec
	if r.heldOut() {
		spec.BenchFilter = r.shownFilter
	}
	opts, err := r.Options(spec)
	if err != nil {
		return false, err
	}
	opts.Kind = "optimize"
	opts.Candidates = make([]candidate.Candidate, len(todo))
	for i, e := range todo {
		opts.Candidates[i] = e.c
	}
	if r.Budget > 0 {
		opts.Deadline = r.start.Add(r.Budget)
	}
	start := time.Now()
	rep, err := r.evaluate(ctx, opts)
	r.report.JudgeSeconds += time.Since(start).Seconds()
	if err != nil {
		return false, fmt.Errorf("round %d: %w", round, err)
	}
	rd.Job = rep.Job
	prevBest := r.best()
	for i, e := range todo {
		e.jobID, e.res = rep.Job, rep.Candidates[i]
		if rep.Winner != nil && *rep.Winner == e.c.Name {
			e.profile = rep.Profile
		}
		r.record(ctx, e)
		st := r.report.stats(e.generator)
		st.Candidates++
		st.count(e.res)
	}
	best := r.best()
	if best != nil {
		rd.Best, rd.Speedup = best.c.Name, best.res.Speedup
	}
	return best != nil && best != prevBest && (prevBest == nil || best.res.CI != nil && best.res.CI[0] > prevBest.res.Speedup), nil
}

func (r *run) evaluate(ctx context.Context, opts evaluator.Options) (*evaluator.Report, error) {
	if r.Evaluate != nil {
		return r.Evaluate(ctx, opts)
	}
	return evaluator.Run(ctx, r.Pool, r.DB, opts)
}

// record keeps e and writes its lineage row.
func (r *run) record(ctx context.Context, e *entry) {
	r.mu.Lock()
	if _, ok := r.byName[e.c.Name]; !ok {
		r.entries = append(r.entries, e)
	}
	r.byName[e.c.Name] = e
	r.mu.Unlock()
	err := r.DB.PutLineage(context.WithoutCancel(ctx), store.Lineage{RunID: r.id, Candidate: e.c.Name, Generator: e.generator,
		Round: e.round, Mode: e.mode, Parent: e.c.Parent, Target: e.target, JobID: e.jobID, ContentID: e.contentID,
		Verdict: string(e.res.Verdict), Speedup: e.res.Speedup})
	if err != nil {
		r.warn(err)
	}
}

// best is the candidate of the run with the largest speedup among those its
// job called faster.
func (r *run) best() *entry {
	var best *entry
	for _, e := range r.entries {
		if !faster(e.res.Verdict) {
			continue
		}
		if best == nil || e.res.Speedup > best.res.Speedup {
			best = e
		}
	}
	return best
}

func faster(v evaluator.Verdict) bool { return v.Info().Faster }

// nextRequests are the next round's calls. There is a repair for each
// candidate of this round that failed, while its line has repairs left.
// There is a refine of the best so far when this round improved it.
func (r *run) nextRequests(round int, improved bool) []request {
	var out []request
	for _, e := range r.entries {
		if e.round != round || e.res.Verdict != evaluator.VerdictFailed || e.repairs >= r.Repairs {
			continue
		}
		g := r.generatorNamed(e.generator)
		out = append(out, request{gen: g, req: r.newRequest(ModeRepair, g, r.targetByName(e.target), e), parent: e})
	}
	if best := r.best(); improved && best != nil {
		g := r.generatorNamed(best.generator)
		out = append(out, request{gen: g, req: r.newRequest(ModeRefine, g, r.targetByName(best.target), best), parent: best})
	}
	return out
}

func (r *run) anyRepairs(reqs []request) bool {
	return slices.ContainsFunc(reqs, func(q request) bool { return q.req.Mode == ModeRepair })
}

func (r *run) generatorNamed(name string) Generator {
	for _, g := range r.Generators {
		if g.Name == name {
			return g
		}
	}
	return r.Generators[0]
}

// remeasure measures the run's best candidate again against base, in a job
// of its own with RemeasureFactor times the pairs and budget of a round. It
// says whether that confirms it is faster.
func (r *run) remeasure(ctx context.Context) error {
	best := r.best()
	if best == nil {
		return nil
	}
	r.report.Winner = best.c.Name
	r.report.Lineage = r.lineageOf(best)
	if r.Spec.Bench == "none" {
		return nil
	}
	r.say(0, "re-measuring %s against base in a longer series", best.c.Name)
	spec := r.Spec
	if r.heldOut() {
		// Judged on every benchmark that executes the targets: a speedup
		// that does not carry over to the held-out ones is overfit.
		spec.BenchFilter = r.judgeFilter
	}
	spec.MinPairs = max(spec.MinPairs, evaluator.DefaultMinPairs) * RemeasureFactor
	spec.MaxPairs = max(spec.MaxPairs, evaluator.DefaultMaxPairs) * RemeasureFactor
	spec.BenchBudget = jobspec.Duration(max(time.Duration(spec.BenchBudget), evaluator.DefaultBudget) * RemeasureFactor)
	// A confirmation must be measured anew: reused pairs from the round
	// that found it would confirm it by its own evidence.
	spec.NoCache = true
	opts, err := r.Options(spec)
	if err != nil {
		return err
	}
	opts.Kind = "optimize-remeasure"
	opts.Candidates = []candidate.Candidate{best.c}
	if r.heldOut() {
		opts.Holdout = r.report.Holdout.HeldOut
	}
	start := time.Now()
	rep, err := r.evaluate(ctx, opts)
	r.report.JudgeSeconds += time.Since(start).Seconds()
	if err != nil {
		return fmt.Errorf("re-measure %s: %w", best.c.Name, err)
	}
	res := rep.Candidates[0]
	r.report.Remeasure = &Remeasure{Job: rep.Job, Result: res, Confirmed: faster(res.Verdict), Profile: rep.Profile}
	switch res.Verdict {
	case evaluator.VerdictOverfit:
		r.report.Winner, r.report.Overfit = "", best.c.Name
	case evaluator.VerdictSuspect:
		r.report.Winner, r.report.Suspect = "", best.c.Name
	}
	return nil
}

// lineageOf is e's line, from its first ancestor to e.
func (r *run) lineageOf(e *entry) []Step {
	var out []Step
	for x := e; x != nil && len(out) < 100; x = r.byName[x.c.Parent] {
		out = append(out, Step{Candidate: x.c.Name, Generator: x.generator, Round: x.round, Mode: x.mode,
			Verdict: string(x.res.Verdict), Speedup: x.res.Speedup, CI: x.res.CI, Explanation: x.c.Explanation})
	}
	slices.Reverse(out)
	return out
}

// finish completes the report, records the run's end, and returns err.
func (r *run) finish(ctx context.Context, err error) (*Report, error) {
	rep := r.report
	rep.Seconds = time.Since(r.start).Seconds()
	for _, e := range r.entries {
		rep.Candidates = append(rep.Candidates, Step{Candidate: e.c.Name, Generator: e.generator, Round: e.round, Mode: e.mode,
			Parent: e.c.Parent, Verdict: string(e.res.Verdict), Speedup: e.res.Speedup, CI: e.res.CI, Job: e.jobID,
			Explanation: e.c.Explanation, DuplicateOf: e.res.DuplicateOf, Failure: e.res.Failure})
	}
	state := "finished"
	switch {
	case ctx.Err() != nil:
		state = "interrupted"
	case err != nil:
		state = "failed"
		rep.Error = err.Error()
	}
	rep.State = state
	body, merr := json.Marshal(rep)
	if merr != nil { // JSON cannot encode it (a NaN): the run is recorded without it
		merr = fmt.Errorf("record the optimize run's report: %w", merr)
	}
	if ferr := r.DB.FinishOptimizeRun(context.WithoutCancel(ctx), r.id, state, rep.Winner, body); ferr != nil && err == nil {
		err = ferr
	}
	if err == nil {
		err = merr
	}
	return rep, err
}

func newRunID() string {
	var b [6]byte
	rand.Read(b[:])
	return "opt-" + time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}
