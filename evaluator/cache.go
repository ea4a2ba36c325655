package evaluator

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/gobench"
	"github.com/optimizer-dev/optimizer/evaluator/measure"
	"github.com/optimizer-dev/optimizer/evaluator/testedits"
	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/proc"
	"github.com/optimizer-dev/optimizer/profiler"
	"github.com/optimizer-dev/optimizer/stats"
	"github.com/optimizer-dev/optimizer/store"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// The result cache by content. A job reuses what an earlier job learned
// when everything that could change it is the same (docs/design.md, "The
// result cache"):
//
//   - A candidate's phase-1 outcome, keyed by its content id (the tree it
//     makes), the baseline's key (base, test command, Go version, platform,
//     setup and copied files, the environment variables that change what a
//     test does), --timeout, the sandbox, the memory cap and whose test
//     files judge it. Only outcomes that are the candidate's own are kept:
//     a pass, or a build or test failure judged against a baseline that ran
//     to its end. A timeout (load can cause one), an error of the
//     environment, a slot that broke, an interrupted run, or any outcome
//     judged against a baseline that timed out is never kept.
//   - A Go benchmark's calibration, keyed by the hash of base's test binary,
//     the benchmark, its pattern, the calibration target, --bench-arg, how
//     its process runs (pinning, memory cap, sandbox) and the host.
//   - A candidate's benchmark pairs, keyed by the hashes of both sides' test
//     binaries, every benchmark measured with its iteration count, and the
//     same arguments, placement and host. A later job starts from the
//     stored pairs and measures more only when its stopping rule asks. A
//     --bench command's samples are never reused: what it runs is not known.
//
// Options.NoCache reuses nothing (the baseline's cached tests included),
// but still keeps what the job learns, replacing older entries.

// cacheVersion changes every key when the meaning of an entry changes.
// v2: Go samples run from one path, a fresh copy of their binary each
// (sampler_go.go); pairs measured before it carry a fixed per-file offset.
const cacheVersion = "cache-v3"

// testsEntry is a candidate's phase-1 outcome as the cache keeps it.
type testsEntry struct {
	Verdict     Verdict    `json:"verdict"` // passed or failed
	Failure     *Failure   `json:"failure,omitempty"`
	TestsPassed int        `json:"tests_passed,omitempty"`
	TestsTotal  int        `json:"tests_total,omitempty"`
	TestEdits   *TestEdits `json:"test_edits,omitempty"`
	// What judge.go learned at the first staging, for the later phases.
	Restore *restoreEntry `json:"restore,omitempty"`
	Contrib *contribEntry `json:"contrib,omitempty"`
}

type restoreEntry struct {
	Files   map[string][]byte `json:"files,omitempty"`
	Deleted []string          `json:"deleted,omitempty"`
}

type contribEntry struct {
	Files map[string][]byte `json:"files,omitempty"`
	Names []string          `json:"names,omitempty"`
	Dirs  []string          `json:"dirs,omitempty"`
}

// cachedRound is one stored pair: every benchmark's metrics on both sides,
// and the job that measured them.
type cachedRound struct {
	Job  string         `json:"job"`
	Base []cachedMetric `json:"base"`
	Cand []cachedMetric `json:"cand"`
}

type cachedMetric struct {
	Bench string  `json:"bench"`
	Unit  string  `json:"unit"`
	Value float64 `json:"value"`
	Iters int64   `json:"iters"`
}

func hashKey(kind string, parts ...string) string {
	h := sha256.New()
	io.WriteString(h, cacheVersion+"\x00"+kind)
	for _, p := range parts {
		fmt.Fprintf(h, "\x00%d:%s", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// testsKey is the key of c's phase-1 outcome; c's content id must be known.
// A job that is not go test -json keys by the rule that finds the other
// languages' test files too (testedits.IsTestFile): they judge it.
func (j *job) testsKey(c *cand) string {
	parts := []string{j.baselineKey(), c.res.ID,
		j.opts.Timeout.String(), fmt.Sprint(j.sandbox.Active, j.sandbox.Net), fmt.Sprint(j.opts.MemLimit),
		fmt.Sprint(j.opts.TrustCandidateTests), fmt.Sprint(j.goTest)}
	if !j.goTest {
		parts = append(parts, "other-test-files-v1")
	}
	return hashKey(store.CacheTests, parts...)
}

// reuseTests settles c's phase-1 outcome from the cache, when it has one,
// and reports whether it did. A pass goes on as a tested pass would.
func (j *job) reuseTests(ctx context.Context, c *cand, start time.Time) bool {
	if j.opts.NoCache || c.res.ID == "" {
		return false
	}
	e, err := j.db.CacheEntry(ctx, store.CacheTests, j.testsKey(c))
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			j.log.Warn("read the result cache", "candidate", c.spec.Name, "err", err)
		}
		return false
	}
	var te testsEntry
	if err := json.Unmarshal(e.Value, &te); err != nil || (te.Verdict != VerdictPassed && te.Verdict != VerdictFailed) {
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

// keepTests puts c's phase-1 outcome in the cache, when it is c's own: a
// pass or a build or test failure, judged against a baseline that ran to
// its end, in a job that was not cancelled.
func (j *job) keepTests(ctx context.Context, c *cand, base *testOutcome, f *Failure) {
	if ctx.Err() != nil || base == nil || base.TimedOut || c.res.ID == "" {
		return
	}
	te := testsEntry{Verdict: VerdictPassed}
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
		te.Restore = &restoreEntry{Files: c.restore.files, Deleted: c.restore.deleted}
	}
	if c.contrib != nil {
		te.Contrib = &contribEntry{Files: c.contrib.Files, Names: c.contrib.Names, Dirs: c.contrib.Dirs}
	}
	j.putCache(ctx, store.CacheTests, j.testsKey(c), c.spec.Name, te)
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

// fileHash is the SHA-256 of a file, such as a test binary; "" when it
// cannot be read, which makes no key.
func fileHash(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// binHash hashes a test binary once per job.
func (j *job) binHash(path string) string {
	if h, ok := j.binHashes[path]; ok {
		return h
	}
	h := fileHash(path)
	j.binHashes[path] = h
	return h
}

// placeKey is what of a benchmark process's placement can change its
// numbers: the CPU it is pinned to, its memory cap, the sandbox, the host.
func (j *job) placeKey(at gobench.Place) string {
	return fmt.Sprintf("cpu=%d mem=%d sandbox=%v host=%s", at.CPU, at.MemLimit, at.Sandbox != nil, hostKey())
}

// calibKey is the key of a benchmark's calibration at base; "" when base's
// binary cannot be hashed.
func (j *job) calibKey(b *measure.GoBench, pattern string) string {
	bin := j.binHash(b.BaseBin)
	if bin == "" {
		return ""
	}
	return hashKey(store.CacheCalibration, bin, b.Pkg.ImportPath, b.Name, pattern, calibrateTarget.String(),
		strings.Join(j.opts.BenchArgs, "\x00"), j.placeKey(b.BaseAt))
}

// cachedCalibration returns the stored counts under key, when there are.
func (j *job) cachedCalibration(ctx context.Context, key string) ([]gobench.Count, bool) {
	if j.opts.NoCache || key == "" {
		return nil, false
	}
	e, err := j.db.CacheEntry(ctx, store.CacheCalibration, key)
	if err != nil {
		return nil, false
	}
	var counts []gobench.Count
	if json.Unmarshal(e.Value, &counts) != nil || len(counts) == 0 {
		return nil, false
	}
	return counts, true
}

// samplesKey is the key of c's benchmark pairs: both sides' binaries, every
// benchmark with its count, and how they run. "" when a binary cannot be
// hashed.
func (j *job) samplesKey(benches []*measure.GoBench) string {
	parts := []string{strings.Join(j.opts.BenchArgs, "\x00")}
	for _, b := range benches {
		bb, cb := j.binHash(b.BaseBin), j.binHash(b.CandBin)
		if bb == "" || cb == "" {
			return ""
		}
		parts = append(parts, fmt.Sprintf("%s %s n=%d base=%s cand=%s base@%s cand@%s", b.Pkg.ImportPath, b.Name, b.N, bb, cb,
			j.placeKey(b.BaseAt), j.placeKey(b.CandAt)))
	}
	slices.Sort(parts[1:])
	return hashKey(store.CacheSamples, parts...)
}

// reusedRounds returns c's stored pairs, at most MaxPairs of them, and
// records them as the job's own samples, marked reused.
func (j *job) reusedRounds(ctx context.Context, c *cand) []cachedRound {
	rounds := j.storedRounds(ctx, c.samplesKey)
	if len(rounds) > 0 {
		j.recordReused(ctx, c, rounds)
	}
	return rounds
}

// storedRounds returns the pairs stored under key, at most MaxPairs.
func (j *job) storedRounds(ctx context.Context, key string) []cachedRound {
	if j.opts.NoCache || key == "" {
		return nil
	}
	e, err := j.db.CacheEntry(ctx, store.CacheSamples, key)
	if err != nil {
		return nil
	}
	var rounds []cachedRound
	if json.Unmarshal(e.Value, &rounds) != nil {
		return nil
	}
	return rounds[:min(len(rounds), j.opts.MaxPairs)]
}

// recordReused stores rounds as c's samples in this job, each marked with
// the job that measured it, and says so in c's result and the events.
func (j *job) recordReused(ctx context.Context, c *cand, rounds []cachedRound) {
	var rows []store.BenchSample
	var from []string
	for r, rd := range rounds {
		for s, ms := range [2][]cachedMetric{rd.Base, rd.Cand} {
			for _, m := range ms {
				rows = append(rows, store.BenchSample{JobID: j.id, Candidate: c.spec.Name, Benchmark: m.Bench, Unit: m.Unit,
					Side: measure.Side(s).String(), Round: r, Order: 2*r + s, Value: m.Value, Iterations: m.Iters, ReusedFrom: rd.Job,
					Host: j.host}) // the samples key holds the host's name and CPU: the same as this job's
			}
		}
		if !slices.Contains(from, rd.Job) {
			from = append(from, rd.Job)
		}
	}
	if err := j.db.AddBenchSamples(context.WithoutCancel(ctx), rows); err != nil {
		j.notRecorded("benchmark samples", err)
	}
	j.mu.Lock()
	c.res.ReusedPairs, c.res.ReusedPairsFrom = len(rounds), from
	j.mu.Unlock()
	j.log.Debug("pairs reused", "candidate", c.spec.Name, "pairs", len(rounds), "from", strings.Join(from, ","))
	j.event(ctx, "reused", c.spec.Name, fmt.Sprintf("%d benchmark pairs are reused from job %s", len(rounds), strings.Join(from, ", ")))
}

// keepRounds puts c's pairs in the cache under its binaries' key and its
// sources' key.
func (j *job) keepRounds(ctx context.Context, c *cand, rounds []cachedRound) {
	for _, key := range []string{c.samplesKey, c.sourceKey} {
		if key != "" {
			j.putCache(ctx, store.CacheSamples, key, c.spec.Name, rounds)
		}
	}
}

// settleFromSources settles c's benchmark phase from the pairs stored under
// the key of its sources (sourceKey), without the machine, slots or
// builds, when they settle its verdict or reach --max-pairs. Otherwise it
// returns false, and phase 2 builds the binaries and goes on from the same
// pairs under their key.
func (j *job) settleFromSources(ctx context.Context, c *cand) bool {
	c.sourceKey = j.sourceKey(ctx, c)
	rounds := j.storedRounds(ctx, c.sourceKey)
	if len(rounds) < j.opts.MinPairs {
		return false
	}
	seq := stats.Sequential{MinPairs: j.opts.MinPairs, MaxPairs: j.opts.MaxPairs, Alpha: DefaultAlpha, MinSpeedup: j.opts.MinSpeedup}
	series := measure.NewSeries(j.opts.Metric.JudgedUnit)
	for _, rd := range rounds {
		series.Add(toMetrics(rd.Base), toMetrics(rd.Cand))
	}
	if series.Rounds() == 0 {
		return false
	}
	dec := seq.Look(series.Names(), series.Pairs())
	if !dec.Settled && len(rounds) < j.opts.MaxPairs {
		return false
	}
	start := time.Now()
	j.recordReused(ctx, c, rounds)
	j.decide(ctx, c, series, dec)
	c.unbuilt = true
	j.benched(c, start)
	j.settle(ctx, c)
	return true
}

// sourceKey is the key of c's pairs by what makes its test binaries and
// how they run, so that a repeat needs no build to find them. It holds:
//   - c's tree and base's: the content id and the baseline key (base, the
//     toolchain on PATH, the platform, GOFLAGS and the other variables,
//     setup and copied files);
//   - whose test files judge it, and --build-flags;
//   - the benchmarks chosen (--bench-filter, --all, the scope of scope.go)
//     and their arguments;
//   - the calibration target, placement and host, and all of go env.
//
// Built with -trimpath, the binaries are a function of exactly these, so
// the key is as strong as their hashes, except for what lies outside the
// tree. So there is no key when a go.mod replaces a module by a directory,
// when a go.work is in use, or when c changes a go.mod or go.work. "" is
// no key.
func (j *job) sourceKey(ctx context.Context, c *cand) string {
	if j.opts.NoCache || j.bench != "" || c.res.ID == "" {
		return ""
	}
	for _, p := range c.spec.Paths() {
		if strings.HasSuffix(p, "go.mod") || strings.HasSuffix(p, "go.work") {
			return ""
		}
	}
	env := j.buildEnv(ctx)
	if env == "" {
		return ""
	}
	return hashKey("samples-by-source", j.baselineKey(), c.res.ID, fmt.Sprint(j.opts.TrustCandidateTests),
		strings.Join(j.opts.BuildFlags, "\x00"), j.opts.BenchFilter, fmt.Sprint(j.opts.All), "scoped by coverage",
		strings.Join(j.opts.BenchArgs, "\x00"), calibrateTarget.String(),
		fmt.Sprintf("cpu=%d mem=%d sandbox=%v host=%s", j.cpu(), j.opts.MemLimit, j.sandbox.Active, hostKey()), env)
}

// buildEnv is go env's output in the repo, once per job, or "" when the
// build reads a module from outside the tree: a go.work in use, or a
// replace by a directory in any go.mod of base.
func (j *job) buildEnv(ctx context.Context) string {
	if j.goEnv != nil {
		return *j.goEnv
	}
	env := ""
	j.goEnv = &env
	cmd := exec.CommandContext(ctx, "go", "env", "-json")
	cmd.Dir = j.opts.Repo
	proc.Tag(cmd)
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	var vars map[string]string
	if json.Unmarshal(out, &vars) != nil || (vars["GOWORK"] != "" && vars["GOWORK"] != "off") {
		return ""
	}
	_, err = gitcmd.Run(ctx, gitcmd.Cmd{Dir: j.opts.Repo, ReadOnly: true,
		Args: []string{"grep", "-q", "-E", `=>[[:space:]]*(\.|/)`, j.opts.Base, "--", "go.mod", "**/go.mod"}})
	var ge *gitcmd.Error
	if err == nil {
		return "" // a replace by a directory: found
	} else if !errors.As(err, &ge) || ge.ExitCode() != 1 {
		return "" // git grep could not tell
	}
	// GOGCCFLAGS names a fresh temporary directory at every call; what it
	// says of the C compiler is in CC and CGO_CFLAGS.
	delete(vars, "GOGCCFLAGS")
	b, _ := json.Marshal(vars) // keys sorted
	env = string(b)
	return env
}

func toMetrics(ms []cachedMetric) []measure.Metric {
	out := make([]measure.Metric, len(ms))
	for i, m := range ms {
		out[i] = measure.Metric{Bench: m.Bench, Unit: m.Unit, Value: m.Value, Iters: m.Iters}
	}
	return out
}

func fromMetrics(ms []measure.Metric) []cachedMetric {
	out := make([]cachedMetric, len(ms))
	for i, m := range ms {
		out[i] = cachedMetric{Bench: m.Bench, Unit: m.Unit, Value: m.Value, Iters: m.Iters}
	}
	return out
}

// hostKey names the machine benchmarks ran on: its name, CPU model and
// count, and platform.
var hostKey = sync.OnceValue(func() string {
	name, _ := os.Hostname()
	model := ""
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	return fmt.Sprintf("%s/%s/%d/%s/%s", name, model, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)
})

// rebuild builds the test binaries of w for the profile, when its pairs
// came from the cache with none built. It builds as phase 2 would have,
// calibration included (the cache mostly answers it). Then it puts its
// slot back at base, as profiling expects.
func (j *job) rebuild(ctx context.Context, w *cand, slots []*worktreepool.Slot) error {
	var filter *gobench.Filter
	if j.opts.BenchFilter != "" {
		f, err := gobench.NewFilter(j.opts.BenchFilter)
		if err != nil {
			return err
		}
		filter = f
	}
	res := w.res
	_, note, fail := j.newGoSampler(ctx, w, slots, filter)
	j.mu.Lock()
	w.res.Verdict, w.res.Failure = res.Verdict, res.Failure // building decides nothing now
	j.mu.Unlock()
	switch {
	case fail != nil:
		return fmt.Errorf("build its benchmarks: %s", fail.Message)
	case w.measured == nil:
		return fmt.Errorf("build its benchmarks: %s", note)
	}
	if err := slots[0].Reset(ctx); err != nil {
		return fmt.Errorf("reset the slot to base: %w", err)
	}
	return j.prepare(ctx, slots[0])
}

// profileEntry is a winner's Go profile as the cache keeps it: the summary
// and the raw profiles it was made from.
type profileEntry struct {
	Summary *profiler.Summary `json:"summary"`
	Files   map[string]string `json:"files"` // role (base, cand, base-mem, cand-mem) -> path
}

// profileKey is the key of w's Go profile: its pairs' source key and the
// benchmarks it was found faster on, which choose what is profiled. ""
// when its pairs have no source key.
func (j *job) profileKey(w *cand) string {
	if w.sourceKey == "" || j.opts.ProfileCmd != "" {
		return ""
	}
	j.mu.Lock()
	var faster []string
	for _, b := range w.res.Benchmarks {
		if !b.Aside() && b.Label(j.opts.MinSpeedup) == VerdictFaster {
			faster = append(faster, b.Name)
		}
	}
	j.mu.Unlock()
	slices.Sort(faster)
	return hashKey("profile", w.sourceKey, strings.Join(faster, "\x00"))
}

// reuseProfile gives the winner the profile an earlier job took of the same
// binaries on the same benchmarks, when its raw profiles are still there:
// they are copied to this job's profile directory, and recorded as its own.
func (j *job) reuseProfile(ctx context.Context, w *cand, dir string) bool {
	key := j.profileKey(w)
	if j.opts.NoCache || key == "" {
		return false
	}
	e, err := j.db.CacheEntry(ctx, store.CacheProfile, key)
	if err != nil {
		return false
	}
	var pe profileEntry
	if json.Unmarshal(e.Value, &pe) != nil || pe.Summary == nil || pe.Files["base"] == "" || pe.Files["cand"] == "" {
		return false
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false
	}
	moved := map[string]string{}
	for role, src := range pe.Files {
		dst := filepath.Join(dir, filepath.Base(src))
		if role == "cand" || role == "cand-mem" {
			dst = filepath.Join(dir, fileName(w.spec.Name)+strings.TrimPrefix(filepath.Base(src), fileName(e.Candidate)))
		}
		b, err := os.ReadFile(src)
		if err == nil {
			err = os.WriteFile(dst, b, 0o644)
		}
		if err != nil {
			return false // gone: profile anew
		}
		moved[src] = dst
	}
	sum := pe.Summary
	sum.Candidate = w.spec.Name
	for i, f := range sum.Files {
		if m, ok := moved[f]; ok {
			sum.Files[i] = m
		}
	}
	f := func(role string) string { return moved[pe.Files[role]] }
	j.storeProfile(ctx, w.spec.Name, "cpu", f("base"), f("cand"), sum)
	if sum.Alloc != nil {
		j.storeProfile(ctx, w.spec.Name, "alloc", f("base-mem"), f("cand-mem"), sum.Alloc)
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
	j.putCache(ctx, store.CacheProfile, key, w.spec.Name, profileEntry{Summary: sum, Files: files})
}
