package evaluator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/gobench"
	"github.com/optimizer-dev/optimizer/evaluator/measure"
	"github.com/optimizer-dev/optimizer/evaluator/resultcache"
	"github.com/optimizer-dev/optimizer/evaluator/testedits"
	"github.com/optimizer-dev/optimizer/evaluator/testjudge"
	"github.com/optimizer-dev/optimizer/evaluator/winprofile"
	"github.com/optimizer-dev/optimizer/profiler"
	"github.com/optimizer-dev/optimizer/stats"
	"github.com/optimizer-dev/optimizer/store"
)

// The job's use of the result cache (package resultcache says what it
// holds and what keys it). Only outcomes that are a candidate's own are
// kept: a pass, or a build or test failure judged against a baseline that
// ran to its end. A timeout, an error of the environment, a slot that
// broke, an interrupted run, or any outcome judged against a baseline that
// timed out is never kept. A --bench command's samples are never reused:
// what it runs is not known.
//
// Options.NoCache reuses nothing (the baseline's cached tests included),
// but still keeps what the job learns, replacing older entries.

// cacheKeys is what of the job's settings enters the cache's keys.
func (j *job) cacheKeys() resultcache.Keys {
	return resultcache.Keys{Timeout: j.opts.Timeout, Sandbox: j.sandbox.Active, Net: j.sandbox.Net, MemLimit: j.opts.MemLimit,
		TrustCandidateTests: j.opts.TrustCandidateTests, GoTest: j.goTest,
		BenchArgs: j.opts.BenchArgs, BuildFlags: j.opts.BuildFlags, BenchFilter: j.opts.BenchFilter, All: j.opts.All,
		CalibrateTarget: calibrateTarget, CPU: j.cpu(), Host: resultcache.Host()}
}

// cached reads the entry of kind under key into v, and reports whether it
// did. Nothing is read under NoCache or without a key.
func (j *job) cached(ctx context.Context, kind, key string, v any) (store.CacheEntry, bool) {
	if j.opts.NoCache || key == "" {
		return store.CacheEntry{}, false
	}
	e, err := j.db.CacheEntry(ctx, kind, key)
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			j.log.Warn("read the result cache", "kind", kind, "err", err)
		}
		return e, false
	}
	if err := json.Unmarshal(e.Value, v); err != nil {
		j.log.Warn("unreadable result cache entry", "kind", kind, "job", e.JobID, "err", err)
		return e, false
	}
	return e, true
}

func (j *job) putCache(ctx context.Context, kind, key, name string, v any) {
	b, err := json.Marshal(v)
	if err == nil {
		err = j.db.PutCacheEntry(context.WithoutCancel(ctx), store.CacheEntry{Key: key, Kind: kind, JobID: j.id, Candidate: name, Value: b})
	}
	if err != nil {
		j.notRecorded("the result cache", err)
	}
}

// testsKey is the key of c's phase-1 outcome; c's content id must be known.
func (j *job) testsKey(c *cand) string { return j.cacheKeys().Tests(j.baselineKey(), c.res.ID) }

// reuseTests settles c's phase-1 outcome from the cache, when it has one,
// and reports whether it did. A pass goes on as a tested pass would.
func (j *job) reuseTests(ctx context.Context, c *cand, start time.Time) bool {
	if c.res.ID == "" {
		return false
	}
	var te resultcache.Tests
	e, ok := j.cached(ctx, store.CacheTests, j.testsKey(c), &te)
	if !ok {
		return false
	}
	if te.Verdict != VerdictPassed && te.Verdict != VerdictFailed {
		j.log.Warn("unreadable result cache entry", "candidate", c.spec.Name, "job", e.JobID)
		return false
	}
	if te.Restore != nil {
		c.restore = &restore{files: te.Restore.Files, deleted: te.Restore.Deleted}
	}
	if te.Contrib != nil {
		c.contrib = &testedits.Contribution{Files: te.Contrib.Files, Names: te.Contrib.Names, Dirs: te.Contrib.Dirs}
	}
	j.mu.Lock()
	c.res.ReusedFrom = e.JobID
	c.res.TestEdits = te.TestEdits
	c.res.TestsPassed, c.res.TestsTotal = te.TestsPassed, te.TestsTotal
	j.mu.Unlock()
	j.log.Debug("tests reused", "candidate", c.spec.Name, "from", e.JobID, "verdict", te.Verdict)
	if te.TestEdits.Flagged() {
		j.event(ctx, "test-edits", c.spec.Name, te.TestEdits.Summary()) // as its first staging would have
	}
	j.event(ctx, "reused", c.spec.Name, fmt.Sprintf("its tests' outcome (%s) is reused from job %s", te.Verdict, e.JobID))
	if te.Verdict == VerdictFailed {
		j.fail(ctx, c, start, te.Failure)
		return true
	}
	j.passed(ctx, c, start)
	return true
}

// keepTests puts c's phase-1 outcome in the cache, when it is c's own. That
// is a pass or a build or test failure, judged against a baseline that ran
// to its end, in a job that was not cancelled.
func (j *job) keepTests(ctx context.Context, c *cand, base *testjudge.Outcome, f *Failure) {
	if ctx.Err() != nil || base == nil || base.TimedOut || c.res.ID == "" {
		return
	}
	te := resultcache.Tests{Verdict: VerdictPassed}
	if f != nil {
		if f.Kind != FailTest && f.Kind != FailBuild {
			return
		}
		te.Verdict, te.Failure = VerdictFailed, f
	}
	j.mu.Lock()
	te.TestsPassed, te.TestsTotal, te.TestEdits = c.res.TestsPassed, c.res.TestsTotal, c.res.TestEdits
	j.mu.Unlock()
	if c.restore != nil {
		te.Restore = &resultcache.Restore{Files: c.restore.files, Deleted: c.restore.deleted}
	}
	if c.contrib != nil {
		te.Contrib = &resultcache.Contrib{Files: c.contrib.Files, Names: c.contrib.Names, Dirs: c.contrib.Dirs}
	}
	j.putCache(ctx, store.CacheTests, j.testsKey(c), c.spec.Name, te)
}

// binHash hashes a test binary once per job.
func (j *job) binHash(path string) string {
	if h, ok := j.binHashes[path]; ok {
		return h
	}
	h := resultcache.FileHash(path)
	j.binHashes[path] = h
	return h
}

// calibKey is the key of a benchmark's calibration at base; "" when base's
// binary cannot be hashed.
func (j *job) calibKey(b *measure.GoBench, pattern string) string {
	return j.cacheKeys().Calibration(j.binHash(b.BaseBin), b, pattern)
}

// cachedCalibration returns the stored counts under key, when there are.
func (j *job) cachedCalibration(ctx context.Context, key string) ([]gobench.Count, bool) {
	var counts []gobench.Count
	_, ok := j.cached(ctx, store.CacheCalibration, key, &counts)
	return counts, ok && len(counts) > 0
}

// samplesKey is the key of c's benchmark pairs; "" when a binary cannot be
// hashed.
func (j *job) samplesKey(benches []*measure.GoBench) string {
	return j.cacheKeys().Samples(benches, j.binHash)
}

// reusedRounds returns c's stored pairs, at most MaxPairs of them, and
// records them as the job's own samples, marked reused.
func (j *job) reusedRounds(ctx context.Context, c *cand) []resultcache.Round {
	rounds := j.storedRounds(ctx, c.samplesKey)
	if len(rounds) > 0 {
		j.recordReused(ctx, c, rounds)
	}
	return rounds
}

// storedRounds returns the pairs stored under key, at most MaxPairs.
func (j *job) storedRounds(ctx context.Context, key string) []resultcache.Round {
	var rounds []resultcache.Round
	if _, ok := j.cached(ctx, store.CacheSamples, key, &rounds); !ok {
		return nil
	}
	return rounds[:min(len(rounds), j.opts.MaxPairs)]
}

// recordReused stores rounds as c's samples in this job, each marked with
// the job that measured it, and says so in c's result and the events.
func (j *job) recordReused(ctx context.Context, c *cand, rounds []resultcache.Round) {
	// The samples key holds the host's name and CPU: the same as this job's.
	if err := j.db.AddBenchSamples(context.WithoutCancel(ctx), resultcache.Rows(rounds, j.id, c.spec.Name, j.host)); err != nil {
		j.notRecorded("benchmark samples", err)
	}
	from := resultcache.Jobs(rounds)
	j.mu.Lock()
	c.res.ReusedPairs, c.res.ReusedPairsFrom = len(rounds), from
	j.mu.Unlock()
	j.log.Debug("pairs reused", "candidate", c.spec.Name, "pairs", len(rounds), "from", strings.Join(from, ","))
	j.event(ctx, "reused", c.spec.Name, fmt.Sprintf("%d benchmark pairs are reused from job %s", len(rounds), strings.Join(from, ", ")))
}

// keepRounds puts c's pairs in the cache under its binaries' key and its
// sources' key.
func (j *job) keepRounds(ctx context.Context, c *cand, rounds []resultcache.Round) {
	for _, key := range []string{c.samplesKey, c.sourceKey} {
		if key != "" {
			j.putCache(ctx, store.CacheSamples, key, c.spec.Name, rounds)
		}
	}
}

// settleFromSources settles c's benchmark phase from the pairs stored under
// the key of its sources (sourceKey), without the machine, slots or
// builds, when they settle its verdict or reach --max-pairs. A verdict
// they call faster also needs the hack check's first iterations of the
// same sources. Otherwise it returns false, and phase 2 builds the
// binaries and goes on from the same pairs under their key.
func (j *job) settleFromSources(ctx context.Context, c *cand) bool {
	c.sourceKey = j.sourceKey(ctx, c)
	rounds := j.storedRounds(ctx, c.sourceKey)
	if len(rounds) < j.opts.MinPairs {
		return false
	}
	seq := stats.Sequential{MinPairs: j.opts.MinPairs, MaxPairs: j.opts.MaxPairs, Alpha: DefaultAlpha, MinSpeedup: j.opts.MinSpeedup}
	series := measure.NewSeries(j.opts.Metric.JudgedUnit)
	for _, rd := range rounds {
		m := rd.Metrics()
		series.Add(m[measure.Base], m[measure.Cand])
	}
	if series.Rounds() == 0 {
		return false
	}
	dec := seq.Look(series.Names(), series.Pairs())
	if !dec.Settled && len(rounds) < j.opts.MaxPairs {
		return false
	}
	var firsts []resultcache.First
	if Verdict(dec.Verdict) == VerdictFaster || dec.Subset {
		if _, ok := j.cached(ctx, store.CacheFirsts, resultcache.FirstsKey(c.sourceKey), &firsts); !ok {
			return false // the hack check needs the binaries
		}
	}
	start := time.Now()
	j.recordReused(ctx, c, rounds)
	j.decide(ctx, c, series, dec)
	if firsts != nil {
		j.judgeHacks(c, firsts)
	}
	c.unbuilt = true
	j.benched(c, start)
	j.settle(ctx, c)
	return true
}

// sourceKey is the key of c's pairs by what makes its test binaries and
// how they run (resultcache.Keys.Source), so that a repeat needs no build
// to find them. "" is no key.
func (j *job) sourceKey(ctx context.Context, c *cand) string {
	if j.opts.NoCache || j.bench != "" || c.res.ID == "" || resultcache.ChangesModules(c.spec.Paths()) {
		return ""
	}
	return j.cacheKeys().Source(j.baselineKey(), c.res.ID, j.buildEnv(ctx))
}

// buildEnv is resultcache.BuildEnv, once per job.
func (j *job) buildEnv(ctx context.Context) string {
	if j.goEnv == nil {
		env, err := resultcache.BuildEnv(ctx, j.opts.Repo, j.opts.Base)
		if err != nil {
			// No source key: the pairs are still found by their binaries.
			j.log.Warn("no source key for the result cache", "err", err)
		}
		j.goEnv = &env
	}
	return *j.goEnv
}

// profileKey is the key of w's Go profile; "" when its pairs have no
// source key or a --profile command profiles it.
func (j *job) profileKey(w *cand) string {
	if j.opts.ProfileCmd != "" {
		return ""
	}
	j.mu.Lock()
	faster := winprofile.Faster(w.res.Benchmarks, j.opts.MinSpeedup)
	j.mu.Unlock()
	return resultcache.ProfileKey(w.sourceKey, faster)
}

// reuseProfile gives the winner the profile an earlier job took of the same
// binaries on the same benchmarks, when its raw profiles are still there.
// They are copied to this job's profile directory, and recorded as its own.
func (j *job) reuseProfile(ctx context.Context, w *cand, dir string) bool {
	var pe resultcache.Profile
	e, ok := j.cached(ctx, store.CacheProfile, j.profileKey(w), &pe)
	if !ok || !pe.Usable() {
		return false
	}
	sum, files, err := pe.CopyTo(dir, fileName(e.Candidate), fileName(w.spec.Name))
	if err != nil {
		return false // gone: profile anew
	}
	sum.Candidate = w.spec.Name
	j.storeProfile(ctx, w.spec.Name, "cpu", files["base"], files["cand"], sum)
	if sum.Alloc != nil {
		j.storeProfile(ctx, w.spec.Name, "alloc", files["base-mem"], files["cand-mem"], sum.Alloc)
	}
	j.log.Debug("profile reused", "candidate", w.spec.Name, "from", e.JobID)
	j.event(ctx, "reused", w.spec.Name, "its profile is reused from job "+e.JobID)
	j.mu.Lock()
	j.profileSummary = sum
	j.mu.Unlock()
	return true
}

// keepProfile puts w's Go profile in the cache, when its raw profiles are
// kept (under the job's artifacts: a scratch directory is removed).
func (j *job) keepProfile(ctx context.Context, w *cand, sum *profiler.Summary, files map[string]string) {
	key := j.profileKey(w)
	if key == "" || j.artifacts() == "" || ctx.Err() != nil {
		return
	}
	for role, f := range files {
		if f == "" {
			delete(files, role)
		}
	}
	j.putCache(ctx, store.CacheProfile, key, w.spec.Name, resultcache.Profile{Summary: sum, Files: files})
}
