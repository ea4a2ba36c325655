package evaluator

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/optimizer-dev/optimizer/evaluator/gobench"
	"github.com/optimizer-dev/optimizer/evaluator/winprofile"
	"github.com/optimizer-dev/optimizer/profiler"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// profile captures and summarises CPU profiles of base and the winner on the
// benchmarks that improved, or runs the user's --profile command on the
// winner's slot. Profiling never changes a verdict: whatever goes wrong is a
// warning in the report.
func (j *job) profile(ctx context.Context, w *cand) {
	j.emit(Event{Kind: EventStart, Phase: "profile", Candidate: w.spec.Name, Index: w.idx})
	if j.opts.ProfileCmd == "" && j.improved(w) == nil && !w.unbuilt {
		j.mu.Lock()
		j.profileNote = winprofile.NotProfiled(j.bench != "")
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
			if j.improved(w) == nil {
				j.mu.Lock()
				j.profileNote = winprofile.NotProfiled(false)
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
	target := j.improved(w)
	if target == nil {
		return nil, nil // nothing improved in Go benchmarks: a --bench command measured it
	}
	candSlot, baseSlot := slots[0], slots[0]
	if len(slots) > 1 {
		baseSlot = slots[1]
	}
	base, cand := target.Captures(dir, fileName(w.spec.Name), baseSlot.Dir(), candSlot.Dir(), j.cpu(), j.opts.BenchArgs)
	base.Sandbox = j.box(baseSlot, []string{base.Binary}, []string{dir})
	cand.Sandbox = j.box(candSlot, []string{cand.Binary}, []string{dir})
	if err := profiler.Capture(ctx, base); err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	if err := j.stage(ctx, candSlot, w); err != nil {
		return nil, fmt.Errorf("stage: %w", err)
	}
	if err := profiler.Capture(ctx, cand); err != nil {
		return nil, fmt.Errorf("%s: %w", w.spec.Name, err)
	}
	// With one slot, base's sources are gone: read them from the repo.
	baseSource := winprofile.DirSource(baseSlot.Dir())
	if baseSlot == candSlot {
		baseSource = winprofile.BaseSource(ctx, j.opts.Repo, j.opts.Base)
	}
	module, _ := gobench.ModulePath(filepath.Join(j.opts.Repo, "go.mod"))
	sum, err := profiler.Summarize(base.Out, cand.Out, profiler.SummaryOptions{
		Candidate:  w.spec.Name,
		ModulePath: module,
		Changed:    w.res.Files,
		BaseSource: baseSource,
		CandSource: winprofile.DirSource(candSlot.Dir()),
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

// improved is what of w to profile (winprofile.Improved), or nil.
func (j *job) improved(w *cand) *winprofile.Target {
	if w.measured == nil {
		return nil
	}
	return winprofile.Improved(w.measured.goBench, w.res.Benchmarks, j.opts.MinSpeedup)
}

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
