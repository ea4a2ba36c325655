package evaluator

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/optimizer-dev/optimizer/evaluator/measure"
	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/profiler"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// profile captures and summarises CPU profiles of base and the winner on the
// benchmarks that improved, or runs the user's --profile command on the
// winner's slot. Profiling never changes a verdict: whatever goes wrong is a
// warning in the report.
func (j *job) profile(ctx context.Context, w *cand) {
	j.emit(Event{Kind: EventStart, Phase: "profile", Candidate: w.spec.Name, Index: w.idx})
	if j.opts.ProfileCmd == "" && improved(w, j.opts.MinSpeedup) == nil && !w.unbuilt {
		j.mu.Lock()
		j.profileNote = notProfiled(j.bench != "")
		j.mu.Unlock()
		j.event(ctx, "profile", w.spec.Name, j.profileNote)
		return
	}
	dir := j.artifacts()
	if dir == "" {
		dir = filepath.Join(j.tmp, "artifacts")
	}
	dir = filepath.Join(dir, "profile")
	if j.opts.ProfileCmd == "" && j.reuseProfile(ctx, w, dir) {
		return // the same binaries on the same benchmarks were profiled before (cache.go)
	}
	slots, err := j.pool.AcquireExclusive(ctx)
	if err != nil {
		if ctx.Err() == nil {
			j.warn(ctx, "profile %s: acquire slots: %v", w.spec.Name, err)
		}
		return
	}
	defer func() {
		for _, s := range slots {
			j.pool.Release(s)
		}
	}()
	var sum *profiler.Summary
	switch {
	case j.opts.ProfileCmd != "":
		sum, err = j.profileCommand(ctx, w, slots[0], dir)
	case w.unbuilt:
		// Its pairs came from the result cache with no binary built.
		if err = j.rebuild(ctx, w, slots); err == nil {
			if improved(w, j.opts.MinSpeedup) == nil {
				j.mu.Lock()
				j.profileNote = notProfiled(false)
				j.mu.Unlock()
				return
			}
			sum, err = j.profileGo(ctx, w, slots, dir)
		}
	default:
		sum, err = j.profileGo(ctx, w, slots, dir)
	}
	if err != nil {
		if ctx.Err() == nil {
			j.warn(ctx, "profile %s: %v", w.spec.Name, err)
		}
	}
	if sum == nil {
		return
	}
	j.log.Debug("profile captured", "candidate", w.spec.Name, "files", len(sum.Files))
	for _, msg := range sum.Warnings {
		j.warn(ctx, "profile %s: %s", w.spec.Name, msg)
	}
	j.mu.Lock()
	j.profileSummary = sum
	j.mu.Unlock()
}

// notProfiled says why the winner has no profile when no --profile command
// was given: only Go benchmarks can be profiled without one.
func notProfiled(benchCmd bool) string {
	if benchCmd {
		return "the winner was measured by the --bench command, and only Go benchmarks are profiled without --profile CMD"
	}
	return "no Go benchmark of the winner was judged faster; --profile CMD profiles with a command of your own"
}

// profileCommand runs --profile on the winner, staged in slot, and keeps what
// it leaves as artifacts.
func (j *job) profileCommand(ctx context.Context, w *cand, slot *worktreepool.Slot, dir string) (*profiler.Summary, error) {
	if err := j.stage(ctx, slot, w); err != nil {
		return nil, fmt.Errorf("stage: %w", err)
	}
	files, err := profiler.Command(ctx, j.opts.ProfileCmd, slot.Dir(), dir, j.box(slot, nil, []string{dir}))
	sum := &profiler.Summary{Candidate: w.spec.Name, Files: files, SampleType: "command"}
	j.storeProfile(ctx, w.spec.Name, "command", "", strings.Join(files, "\n"), sum)
	if err != nil {
		return sum, fmt.Errorf("the profile command: %w", err)
	}
	return sum, nil
}

// profileGo takes CPU profiles of base and the winner with phase 2's test
// binaries, on the improved benchmarks of the package that improved most,
// and summarises them. Base runs in slots[1] when there is one; with a single
// slot, base runs first and the winner is staged after.
func (j *job) profileGo(ctx context.Context, w *cand, slots []*worktreepool.Slot, dir string) (*profiler.Summary, error) {
	target := improved(w, j.opts.MinSpeedup)
	if target == nil {
		return nil, nil // nothing improved in Go benchmarks: a --bench command measured it
	}
	candSlot, baseSlot := slots[0], slots[0]
	if len(slots) > 1 {
		baseSlot = slots[1]
	}
	base := profiler.CaptureOptions{
		Binary: target.bench.BaseBin, Dir: filepath.Join(baseSlot.Dir(), target.bench.Pkg.Dir),
		Bench: target.pattern, CPU: j.cpu(),
		Out: filepath.Join(dir, "base.cpu.pprof"), Extra: j.opts.BenchArgs,
	}
	cand := base
	cand.Binary, cand.Out = target.bench.CandBin, filepath.Join(dir, fileName(w.spec.Name)+".cpu.pprof")
	if target.allocs {
		base.MemOut = filepath.Join(dir, "base.mem.pprof")
		cand.MemOut = filepath.Join(dir, fileName(w.spec.Name)+".mem.pprof")
	}
	base.Sandbox = j.box(baseSlot, []string{base.Binary}, []string{dir})
	cand.Sandbox = j.box(candSlot, []string{cand.Binary}, []string{dir})
	if err := profiler.Capture(ctx, base); err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	if err := j.stage(ctx, candSlot, w); err != nil {
		return nil, fmt.Errorf("stage: %w", err)
	}
	cand.Dir = filepath.Join(candSlot.Dir(), target.bench.Pkg.Dir)
	if err := profiler.Capture(ctx, cand); err != nil {
		return nil, fmt.Errorf("%s: %w", w.spec.Name, err)
	}
	if baseSlot == candSlot {
		// One slot: base's sources are gone, so read them from the repo.
		baseSlot = nil
	}
	sum, err := profiler.Summarize(base.Out, cand.Out, profiler.SummaryOptions{
		Candidate:  w.spec.Name,
		ModulePath: modulePath(j.opts.Repo),
		Changed:    w.res.Files,
		BaseSource: j.baseSource(ctx, baseSlot),
		CandSource: slotSource(candSlot),
		BaseMem:    base.MemOut,
		CandMem:    cand.MemOut,
		Roots:      []string{candSlot.Dir(), slots[len(slots)-1].Dir()},
	})
	if err != nil {
		return nil, fmt.Errorf("summarise: %w", err)
	}
	j.storeProfile(ctx, w.spec.Name, "cpu", base.Out, cand.Out, sum)
	if sum.Alloc != nil {
		j.storeProfile(ctx, w.spec.Name, "alloc", base.MemOut, cand.MemOut, sum.Alloc)
	}
	j.keepProfile(ctx, w, sum, map[string]string{"base": base.Out, "cand": cand.Out, "base-mem": base.MemOut, "cand-mem": cand.MemOut})
	return sum, nil
}

// profileTarget is what to profile: one package's binaries, the improved
// benchmarks in it, and whether allocations changed.
type profileTarget struct {
	bench   *measure.GoBench
	pattern string
	allocs  bool
}

// improved picks the package whose benchmark improved most, and the
// benchmarks of that package labelled faster by the one rule
// (BenchResult.Label): the benchmarks that changed.
func improved(w *cand, minSpeedup float64) *profileTarget {
	if w.measured == nil || len(w.measured.goBench) == 0 {
		return nil
	}
	var best *BenchResult
	for i, b := range w.res.Benchmarks {
		if !b.Aside() && b.Label(minSpeedup) == VerdictFaster && (best == nil || b.Speedup > best.Speedup) {
			best = &w.res.Benchmarks[i]
		}
	}
	if best == nil {
		return nil
	}
	var t profileTarget
	var names []string
	for _, gb := range w.measured.goBench {
		if topLevel(best.Name) == topLevel(gb.Name) {
			t.bench = gb
		}
	}
	if t.bench == nil {
		return nil
	}
	for _, b := range w.res.Benchmarks {
		if allocsChanged(b) && samePackage(w, b.Name, t.bench) {
			t.allocs = true
		}
		if !b.Aside() && b.Label(minSpeedup) == VerdictFaster && samePackage(w, b.Name, t.bench) {
			names = append(names, b.Name)
		}
	}
	t.pattern = benchPattern(names)
	return &t
}

// benchPattern is the -test.bench pattern that runs the benchmarks names
// (full names, BenchmarkX/n=10) and, in the common cases, nothing else:
// go test matches a pattern level by level, split at its slashes, so each
// level is an alternation of the names' parts at that level. A benchmark
// measured without sub-benchmarks runs whole, whatever the deeper levels
// say. Names that differ at two levels (A/x and B/y) select their cross
// product too (A/y and B/x, when those exist).
func benchPattern(names []string) string {
	var levels [][]string
	for _, name := range names {
		for i, part := range strings.Split(name, "/") {
			if i == len(levels) {
				levels = append(levels, nil)
			}
			levels[i] = append(levels[i], regexp.QuoteMeta(part))
		}
	}
	parts := make([]string, len(levels))
	for i, alts := range levels {
		parts[i] = "^(" + strings.Join(dedupe(alts), "|") + ")$"
	}
	return strings.Join(parts, "/")
}

// topLevel is a benchmark's top-level name: BenchmarkX of BenchmarkX/n=10.
func topLevel(name string) string {
	top, _, _ := strings.Cut(name, "/")
	return top
}

func samePackage(w *cand, name string, in *measure.GoBench) bool {
	for _, gb := range w.measured.goBench {
		if topLevel(gb.Name) == topLevel(name) {
			return gb.Pkg.ImportPath == in.Pkg.ImportPath
		}
	}
	return false
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// slotSource reads module-relative files from a slot.
func slotSource(s *worktreepool.Slot) func(string) ([]byte, error) {
	return func(file string) ([]byte, error) {
		root, err := os.OpenRoot(s.Dir())
		if err != nil {
			return nil, err
		}
		defer root.Close()
		return root.ReadFile(filepath.FromSlash(path.Clean(file)))
	}
}

// baseSource reads module-relative files at base: from a slot at base, or
// from the repository's objects when there is none.
func (j *job) baseSource(ctx context.Context, s *worktreepool.Slot) func(string) ([]byte, error) {
	if s != nil {
		return slotSource(s)
	}
	return func(file string) ([]byte, error) {
		b, err := gitShow(ctx, j.opts.Repo, j.opts.Base, file)
		if err != nil {
			return nil, fmt.Errorf("%s at base: %w", file, os.ErrNotExist)
		}
		return b, nil
	}
}

// modulePath reads the module line of the go.mod at the repo root.
func modulePath(repo string) string {
	f, err := os.Open(filepath.Join(repo, "go.mod"))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module"); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// gitShow reads one file at a revision from the repository's objects.
func gitShow(ctx context.Context, repo, rev, file string) ([]byte, error) {
	return gitcmd.Run(ctx, gitcmd.Cmd{Args: []string{"-C", repo, "show", rev + ":" + file}, ReadOnly: true})
}

// allocsChanged reports whether b is an allocation metric that changed:
// significantly beside time, judged faster or slower (--metric allocs), or,
// in an old report, different at all.
func allocsChanged(b BenchResult) bool {
	switch {
	case b.Unit != "B/op" && b.Unit != "allocs/op":
		return false
	case b.Exact:
		return b.Speedup != 1
	case b.Beside:
		return b.Increased || b.Decreased
	}
	return b.Verdict == VerdictFaster || b.Verdict == VerdictSlower
}
