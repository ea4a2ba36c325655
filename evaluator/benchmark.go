package evaluator

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/gobench"
	"github.com/optimizer-dev/optimizer/evaluator/measure"
	"github.com/optimizer-dev/optimizer/evaluator/resultcache"
	"github.com/optimizer-dev/optimizer/machine"
	"github.com/optimizer-dev/optimizer/stats"
	"github.com/optimizer-dev/optimizer/store"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// measured keeps what phase 2 built for a candidate, for the profile phase.
type measured struct {
	goBench []*measure.GoBench
}

// noiseCheck measures base against base before the first candidate, with
// the same benchmarks, binaries and pinning that the candidate will get,
// and warns when --min-speedup is below the noise floor.
func (j *job) noiseCheck(ctx context.Context, c *cand) {
	slots, err := j.pool.AcquireExclusive(ctx)
	if err != nil {
		return
	}
	defer func() {
		for _, s := range slots {
			j.pool.Release(s)
		}
	}()
	smp, _, fail := j.newSampler(ctx, c, slots)
	if fail != nil || smp == nil {
		return
	}
	noise := measure.Noise(ctx, smp, DefaultAlpha, j.opts.MinSpeedup)
	if noise == nil {
		return
	}
	j.mu.Lock()
	j.noise = noise
	j.mu.Unlock()
	if j.opts.MinSpeedup < noise.Floor {
		j.warn(ctx, "--min-speedup %.1f%% is below the noise floor of %.1f%% measured base against base: raise it, or quiet the machine",
			100*j.opts.MinSpeedup, 100*noise.Floor)
	}
}

// benchmark is phase 2: every passing candidate, one at a time, with the
// machine to itself. Each re-acquires slots and stages its candidate again.
func (j *job) benchmark(ctx context.Context) error {
	var todo []*cand
	for _, c := range j.cands {
		if c.res.Verdict == VerdictPassed {
			todo = append(todo, c)
		}
	}
	if j.noBench || len(todo) == 0 {
		return nil
	}
	j.phase(ctx, PhaseBenchmark)
	j.begin(PhaseBenchmark)
	defer j.end(PhaseBenchmark)
	j.sayPlan(ctx, len(todo))
	if j.host == (store.Host{}) {
		j.host = machine.Host(ctx)
	}
	if j.opts.NoiseCheck {
		j.noiseCheck(ctx, todo[0])
	}
	for _, c := range todo {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if j.stop != nil {
			j.unmeasured(ctx, c)
			continue
		}
		func() {
			defer j.recoverCandidate(ctx, c, time.Now())
			j.measureOne(ctx, c)
		}()
	}
	return j.stop
}

// unmeasured settles a candidate that phase 2 did not measure because the
// job stopped for a problem of its own (j.stop).
func (j *job) unmeasured(ctx context.Context, c *cand) {
	j.mu.Lock()
	c.res.Note = "not measured: " + j.stop.Error()
	j.mu.Unlock()
	j.settle(ctx, c)
}

// measureOne benchmarks one candidate against base and settles its verdict.
// Its time and its budget start once it holds the machine: the wait for
// another job or process to let go of it is reported apart, as WaitSeconds.
func (j *job) measureOne(ctx context.Context, c *cand) {
	asked := time.Now()
	j.emit(Event{Kind: EventStart, Phase: "benchmark", Candidate: c.spec.Name, Index: c.idx})
	j.log.Debug("benchmark start", "candidate", c.spec.Name)
	if j.settleFromSources(ctx, c) {
		return // its stored pairs settle it: no machine, no build (cache.go)
	}
	slots, err := j.pool.AcquireExclusive(ctx)
	if err != nil {
		if ctx.Err() == nil {
			j.benched(c, asked)
			j.fail(ctx, c, asked, &Failure{Kind: FailError, Message: fmt.Sprintf("acquire slots to benchmark: %v", err)})
		}
		return
	}
	defer func() {
		for _, s := range slots {
			j.pool.Release(s)
		}
	}()
	start := time.Now()
	j.waited(ctx, c, start.Sub(asked))
	// The wait is over: c holds the machine, and builds and calibrates.
	j.emit(Event{Kind: EventWaiting, Phase: "benchmark", Candidate: c.spec.Name, Index: c.idx})
	smp, note, fail := j.newSampler(ctx, c, slots)
	j.log.Debug("benchmark ready", "candidate", c.spec.Name, "took", since(start))
	if j.stop != nil && ctx.Err() == nil {
		j.unmeasured(ctx, c)
		return
	}
	if fail != nil {
		if ctx.Err() == nil {
			j.benched(c, start)
			j.fail(ctx, c, start, fail)
		}
		return
	}
	if smp == nil {
		j.mu.Lock()
		c.res.Note = note
		j.mu.Unlock()
		j.benched(c, start)
		j.settle(ctx, c)
		return
	}
	raw := smp // the hack check's first iterations are not samples
	smp = measure.Watch(smp, j.cpu(), func(sum *Interference) {
		j.mu.Lock()
		c.res.Interference = sum
		j.mu.Unlock()
	})
	first := 0 // the hack check's runs, which its budget counts
	if _, ok := raw.(firstSampler); ok {
		first = firstRuns
	}
	fail = j.rounds(ctx, c, smp, start, first)
	if ctx.Err() != nil {
		return
	}
	if j.stop != nil || fail != nil {
		j.benched(c, start)
		// A problem of the job (j.stop) is no candidate's failure, even
		// when its sample's error ended the rounds.
		if j.stop != nil {
			j.unmeasured(ctx, c)
		} else {
			j.fail(ctx, c, start, fail)
		}
		return
	}
	j.checkHacks(ctx, c, raw)
	j.benched(c, start) // the hack check is phase 2's time too
	j.mu.Lock()
	c.res.Seconds += time.Since(start).Seconds()
	j.mu.Unlock()
	j.settle(ctx, c)
}

// benched records c's time in phase 2, from its turn to now, and logs it.
func (j *job) benched(c *cand, start time.Time) {
	j.mu.Lock()
	c.res.BenchSeconds = time.Since(start).Seconds()
	j.mu.Unlock()
	j.log.Debug("benchmark end", "candidate", c.spec.Name, "took", since(start))
}

// waited records how long c's benchmark waited for the machine.
func (j *job) waited(ctx context.Context, c *cand, d time.Duration) {
	j.mu.Lock()
	c.res.WaitSeconds += d.Seconds()
	j.mu.Unlock()
	if d >= machinePoll {
		j.event(ctx, "machine-wait", c.spec.Name, fmt.Sprintf("waited %s for the machine before benchmarking", d.Round(time.Millisecond)))
	}
}

// newSampler prepares the trees and binaries for measuring c. A nil sampler
// with a note means there is nothing to measure.
func (j *job) newSampler(ctx context.Context, c *cand, slots []*worktreepool.Slot) (measure.Sampler, string, *Failure) {
	var filter *gobench.Filter
	if j.opts.BenchFilter != "" {
		f, err := gobench.NewFilter(j.opts.BenchFilter)
		if err != nil {
			j.stop = fmt.Errorf("%w: %v", ErrBenchFilter, err)
			return nil, "", nil
		}
		filter = f
	}
	if j.bench != "" {
		return j.newCmdSampler(ctx, c, slots, filter)
	}
	if j.opts.Metric == MetricRSS {
		j.stop = fmt.Errorf("%w: --metric rss judges a --bench command's peak memory, and there is none: give --bench, or judge Go's allocations with --metric allocs or bytes", ErrMetric)
		return nil, "", nil
	}
	return j.newGoSampler(ctx, c, slots, filter)
}

// cpu is the CPU benchmark processes are pinned to, or -1.
func (j *job) cpu() int {
	if !j.opts.Pin || runtime.NumCPU() < 2 {
		return -1
	}
	return runtime.NumCPU() - 1
}

// rounds measures c with smp until its verdict is settled, the pairs reach
// the cap, or the time budget is spent (measure.Rounds). It stores every
// sample and emits each pair for the ETA. The budget and the deadline count
// the one-iteration runs of each side that come after it (the hack check).
func (j *job) rounds(ctx context.Context, c *cand, smp measure.Sampler, start time.Time, first int) *Failure {
	loop := measure.Rounds{
		Seq: stats.Sequential{
			MinPairs:   j.opts.MinPairs,
			MaxPairs:   j.opts.MaxPairs,
			Alpha:      DefaultAlpha,
			MinSpeedup: j.opts.MinSpeedup,
		},
		Judged:    j.opts.Metric.JudgedUnit,
		Seed:      orderSeed(j.id, c.spec.Name),
		Start:     start,
		Budget:    j.opts.Budget,
		Deadline:  j.opts.Deadline,
		FirstRuns: first,
	}
	// The budget does not stop a candidate before the first look that can
	// claim anything: stopped there it could only end not settled, its
	// pairs wasted. A quick look (watch's first verdict) is measured again
	// by a later job when it does not settle.
	loop.FirstClaim = loop.Seq.FirstClaim()
	if j.opts.Quick {
		loop.FirstClaim = 0
	}
	kept := j.reusedRounds(ctx, c) // pairs of earlier jobs (cache.go)
	r0 := len(kept)
	for _, rd := range kept {
		loop.Kept = append(loop.Kept, rd.Metrics())
	}
	loop.Sampled = func(s measure.Side, r, order int, ms []measure.Metric) {
		j.storeSamples(ctx, c.spec.Name, s, r, order, ms)
	}
	loop.Paired = func(p measure.Pair, series *measure.Series) {
		kept = append(kept, resultcache.NewRound(j.id, p))
		j.log.Debug("benchmark pair", "candidate", c.spec.Name, "pair", p.Round+1, "first", p.First,
			"metrics", len(p.Metrics[measure.Cand]), "took", p.Took.Round(time.Millisecond))
		if j.opts.Events != nil { // the forecasts are for the ETA: no listener, no looks
			j.emit(Event{Kind: EventSample, Phase: "benchmark", Candidate: c.spec.Name, Index: c.idx,
				Message: fmt.Sprintf("pair %d", p.Round+1), Pair: p.Round + 1, BaseSample: p.BaseTook, After: p.After,
				Forecast: loop.Seq.Forecast(series.Names(), series.Pairs())})
		}
	}
	out, err := loop.Run(ctx, smp)
	switch {
	case errors.Is(err, measure.ErrTooSlow):
		j.tooSlow(c, out.Series, err)
		return nil
	case errors.Is(err, measure.ErrNoSample) && (j.opts.Metric == MetricAllocs || j.opts.Metric == MetricBytes):
		return &Failure{Kind: FailError, Message: fmt.Sprintf("%v: --metric %s judges Go's %s, and no benchmark printed it on both sides (a bench command must print Go benchmark lines with -benchmem)",
			err, j.opts.Metric, map[Metric]string{MetricAllocs: "allocs/op", MetricBytes: "B/op"}[j.opts.Metric])}
	case errors.Is(err, measure.ErrNoSample):
		return &Failure{Kind: FailError, Message: err.Error()}
	case err != nil && ctx.Err() != nil:
		return nil
	case err != nil:
		return &Failure{Kind: FailError, Message: err.Error()}
	}
	j.decide(ctx, c, out.Series, out.Decision)
	if len(kept) > r0 && ctx.Err() == nil {
		j.keepRounds(ctx, c, kept)
	}
	return nil
}

// pastDeadline reports whether the job's deadline, if it has one, is past.
func (j *job) pastDeadline() bool {
	return !j.opts.Deadline.IsZero() && time.Now().After(j.opts.Deadline)
}

// orderSeed seeds the coin that orders one candidate's pairs.
func orderSeed(jobID, name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(jobID + "\x00" + name))
	return h.Sum64()
}

// decide turns a stats decision into the candidate's verdict and benchmark
// table.
func (j *job) decide(ctx context.Context, c *cand, s *measure.Series, dec stats.Decision) {
	j.mu.Lock()
	defer j.mu.Unlock()
	c.res.Verdict = Verdict(dec.Verdict)
	c.res.Speedup = dec.Aggregate.Speedup
	c.res.CI = &[2]float64{dec.Aggregate.Low, dec.Aggregate.High}
	c.res.Pairs = s.Rounds()
	c.res.Benchmarks = nil
	c.res.FasterOn, c.res.SlowerOn, c.res.Qualifier = nil, nil, ""
	names := s.Names()
	for _, b := range dec.FasterOn {
		c.res.FasterOn = append(c.res.FasterOn, names[b])
	}
	for _, b := range dec.SlowerOn {
		c.res.SlowerOn = append(c.res.SlowerOn, names[b])
	}
	if dec.Subset {
		c.res.Qualifier = QualifierFasterOnSome
	}
	rows := make([]store.BenchResult, 0, len(dec.PerBench))
	for i, name := range names {
		e := dec.PerBench[i]
		br := BenchResult{
			Name: name, Unit: s.Unit(name), Base: s.Center(name, measure.Base),
			Speedup: e.Speedup, CI: [2]float64{e.Low, e.High}, P: e.P, Level: e.Level, Pairs: e.Pairs,
			Verdict: Verdict(e.Verdict),
		}
		// The candidate's column agrees with the speedup beside it.
		_, br.Candidate = br.Columns()
		c.res.Benchmarks = append(c.res.Benchmarks, br)
		rows = append(rows, benchRow(j.id, c.spec.Name, br))
	}
	for _, x := range s.Beside(DefaultAlpha) {
		c.res.Benchmarks = append(c.res.Benchmarks, x)
		rows = append(rows, benchRow(j.id, c.spec.Name, x))
	}
	j.layoutCheck(c, s)
	c.res.Unsettled = !dec.Settled
	if !dec.Settled {
		c.res.Note = fmt.Sprintf("not settled after %d pairs", s.Rounds())
		if j.pastDeadline() && s.Rounds() < j.opts.MaxPairs {
			c.res.Note += ": the job's time budget ran out"
		}
	}
	j.storeBenchResults(ctx, rows)
}

// layoutCheck calls a faster candidate layout-sensitive when its speedup
// rests on one of the two code layouts its pairs took turns in
// (measure.Setting, stats.LayoutSensitive). Each pair's log-ratio, averaged
// over the judged benchmarks, is grouped by the pair's layout. It is called
// with j.mu held.
func (j *job) layoutCheck(c *cand, s *measure.Series) {
	if c.res.Verdict != VerdictFaster || c.measured == nil || !twoLayouts(c.measured.goBench) {
		return
	}
	var g [measure.Layouts][]float64
	for r, round := range s.Pairs() {
		if len(round) == 0 {
			continue
		}
		var sum float64
		for _, p := range round {
			sum += p.LogRatio()
		}
		layout, _ := measure.Setting(r)
		g[layout] = append(g[layout], sum/float64(len(round)))
	}
	sensitive, sp := stats.LayoutSensitive(g[0], g[1], j.opts.MinSpeedup, DefaultAlpha)
	if !sensitive {
		return
	}
	c.res.Verdict, c.res.Qualifier = VerdictLayoutSensitive, ""
	c.res.AddNote(fmt.Sprintf("%.3g× in the first code layout and %.3g× in the second: the speedup depends on where the code sits, not on the change alone", sp[0], sp[1]))
}

// twoLayouts reports whether every benchmark's pairs took turns in two
// code layouts.
func twoLayouts(benches []*measure.GoBench) bool {
	for _, b := range benches {
		if b.BaseAlt == "" || b.CandAlt == "" {
			return false
		}
	}
	return len(benches) > 0
}

// tooSlow settles a candidate whose sample ran far past the base's.
func (j *job) tooSlow(c *cand, s *measure.Series, err error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	c.res.Verdict = VerdictSlower
	c.res.Pairs = s.Rounds()
	c.res.Note = err.Error()
}

// checkBenchFilter stops a job of Go benchmarks, before anything runs,
// when --bench-filter selects none of base's top-level benchmarks
// (gobench.TopNames): otherwise the whole test phase would run first. Its
// sub-benchmark parts are checked later, at base's calibration, which runs
// them.
func (j *job) checkBenchFilter(ctx context.Context) error {
	if j.opts.BenchFilter == "" || j.bench != "" {
		return nil
	}
	filter, err := gobench.NewFilter(j.opts.BenchFilter)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBenchFilter, err)
	}
	names, err := gobench.TopNames(ctx, j.opts.Repo, j.opts.Base)
	if err != nil {
		return err
	}
	if slices.ContainsFunc(names, filter.MatchTop) {
		return nil
	}
	list := "none"
	if len(names) > 0 {
		list = strings.Join(names, ", ")
	}
	return fmt.Errorf("%w: --bench-filter %q matches no benchmark; the benchmarks are: %s", ErrBenchFilter, filter, list)
}
