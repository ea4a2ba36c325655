package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"golang.org/x/perf/benchmath"

	mach "github.com/optimizer-dev/optimizer/machine"
	"github.com/optimizer-dev/optimizer/stats"

	"github.com/optimizer-dev/optimizer/evaluator/gobench"
	"github.com/optimizer-dev/optimizer/proc"
)

// benchstatResult is what `go test -bench -count=N` on base, then on the
// candidate, and benchstat's comparison say.
type benchstatResult struct {
	Base, Cand float64 // medians, sec/op
	P          float64
	Delta      string // as benchstat prints it: "-5.12%" or "~"
	Secs       float64
}

// Faster is benchstat's reading: a significant change (p below its alpha,
// 0.05) and the candidate's median below base's.
func (r benchstatResult) Faster() bool { return r.Delta != "~" && r.Cand < r.Base }

// Speedup is base's median over the candidate's.
func (r benchstatResult) Speedup() float64 { return r.Base / r.Cand }

// benchstat copies base's tree and the candidate's (base with the
// candidate's files laid over) under scratch. It runs the benchmark count
// times in each, base first. It compares them as benchstat does
// (benchmath.AssumeNothing: medians, Mann-Whitney U, alpha 0.05).
func benchstat(ctx context.Context, t target, repo, cand, scratch string, count int) (benchstatResult, error) {
	var r benchstatResult
	base, cdir := filepath.Join(scratch, "base"), filepath.Join(scratch, "cand")
	if _, err := os.Stat(base); err != nil {
		if err := copyTree(repo, base); err != nil {
			return r, err
		}
	}
	if err := os.RemoveAll(cdir); err != nil {
		return r, err
	}
	if err := copyTree(repo, cdir); err != nil {
		return r, err
	}
	if err := copyTree(cand, cdir); err != nil {
		return r, err
	}
	t0 := time.Now()
	a, err := goBench(ctx, base, t, count)
	if err != nil {
		return r, err
	}
	b, err := goBench(ctx, cdir, t, count)
	if err != nil {
		return r, err
	}
	r.Secs = time.Since(t0).Seconds()
	sa, sb := benchmath.NewSample(a, &benchmath.DefaultThresholds), benchmath.NewSample(b, &benchmath.DefaultThresholds)
	ma, mb := benchmath.AssumeNothing.Summary(sa, 0.95), benchmath.AssumeNothing.Summary(sb, 0.95)
	cmp := benchmath.AssumeNothing.Compare(sa, sb)
	r.Base, r.Cand, r.P, r.Delta = ma.Center, mb.Center, cmp.P, cmp.FormatDelta(ma.Center, mb.Center)
	return r, nil
}

// goBench runs `go test -run ^$ -bench B -count N` in dir's package, as a
// user would (unpinned), and returns its sec/op values.
func goBench(ctx context.Context, dir string, t target, count int) ([]float64, error) {
	var stdout bytes.Buffer
	res, err := proc.Run(ctx, proc.Cmd{Dir: dir, CPU: -1, Stdout: &stdout,
		Args: []string{"go", "test", "-run", "^$", "-bench", t.Bench, "-count", fmt.Sprint(count), "./" + t.Pkg}})
	if err != nil {
		return nil, err
	}
	if res.ExitCode != 0 {
		return nil, fmt.Errorf("go test -bench in %s: exit %d:\n%s", dir, res.ExitCode, res.Output)
	}
	ms, err := gobench.ParseOutput(stdout.Bytes())
	if err != nil {
		return nil, err
	}
	var out []float64
	for _, m := range ms {
		if m.Unit == "sec/op" {
			out = append(out, m.Value)
		}
	}
	if len(out) != count {
		return nil, fmt.Errorf("go test -bench in %s: %d results, want %d:\n%s", dir, len(out), count, stdout.Bytes())
	}
	return out, nil
}

// copyTree copies src's files (not .git) over dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
	})
}

// machine describes where the run happened.
func machine() string {
	model := "?"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if name, ok := strings.CutPrefix(line, "model name"); ok {
				model = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), ":"))
				break
			}
		}
	}
	return fmt.Sprintf("%d × %s, %s, load average at the start %s", runtime.NumCPU(), model, runtime.Version(), mach.Load())
}

// writeTable prints one job's results and its summary lines.
func writeTable(w io.Writer, o options, t target, st setting, rep int, rs []result) {
	mod := t.Module
	if mod == "" {
		mod = "the accuracy fixture (testdata/fixture)"
	}
	fmt.Fprintf(w, "\n## %s: %s, %s\n\n", t.Name, mod, strings.TrimSuffix(strings.TrimPrefix(t.Func, "func "), "("))
	if len(o.Samples) > 1 || o.Reps > 1 {
		fmt.Fprintf(w, "Sample length %s, rep %d", st, rep+1)
		if len(rs) > 0 {
			fmt.Fprintf(w, ", started %s at load %s", rs[0].Started.UTC().Format("15:04:05 UTC"), rs[0].LoadStart)
		}
		fmt.Fprint(w, ". ")
	}
	fmt.Fprintf(w, "Base runs its body %d times a call; a candidate %d−m times. Benchmark `%s`.\n\n", o.K, o.K, t.Bench)
	stat := o.Count > 0
	if stat {
		fmt.Fprintln(w, "| trial | true change | optimizer | ratio [interval] | pairs | bench time | benchstat (-count "+fmt.Sprint(o.Count)+") | p | its time | load |")
		fmt.Fprintln(w, "|---|---|---|---|---:|---:|---|---:|---:|---|")
	} else {
		fmt.Fprintln(w, "| trial | true change | optimizer | ratio [interval] | pairs | bench time | load |")
		fmt.Fprintln(w, "|---|---|---|---|---:|---:|---|")
	}
	for _, r := range rs {
		change := fmt.Sprintf("%.3f×", o.ratio(r.M))
		if r.M == 0 {
			change = "A/A"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %.3f× [%.3f, %.3f] | %d | %.1fs |", r.Name, change, r.Verdict, r.Speedup, r.CI[0], r.CI[1], r.Pairs, r.BenchSecs)
		switch {
		case stat && r.Stat.Delta == "":
			fmt.Fprint(w, " not run (-stat-every) | | |")
		case stat:
			fmt.Fprintf(w, " %s (%.3f×) | %.3f | %.0fs |", r.Stat.Delta, r.Stat.Speedup(), r.Stat.P, r.Stat.Secs)
		}
		fmt.Fprintf(w, " %s |\n", r.Load)
	}
	s := summarise(o, rs)
	if stat {
		fmt.Fprintf(w, "\n- smallest change called faster: optimizer %s, benchstat %s\n", orNone(s.Smallest), orNone(s.SmallestStat))
		fmt.Fprintf(w, "- A/A: optimizer called %d of %d anything but not-faster; benchstat called %d of %d a change (p < 0.05)\n",
			s.AAWrong, s.AA, s.AAStatWrong, s.AAStat)
		return
	}
	fmt.Fprintf(w, "\n- smallest change called faster: %s; A/A: %d of %d called anything but not-faster\n", orNone(s.Smallest), s.AAWrong, s.AA)
}

// summary is what one job's trials add up to.
type summary struct {
	Smallest, SmallestStat float64 // smallest change called faster, 0 if none
	Called, AB             int     // A/B trials called faster, of AB
	AA, AAWrong            int     // A/A trials, and those called anything but not-faster
	AAFaster               int     // A/A trials called faster or winner
	AAStat, AAStatWrong    int     // A/A trials benchstat ran on, and those it called a change
	ABPairs, AAPairs       int
	Secs                   float64     // bench time of every trial
	AASecs, AAJobSecs      float64     // A/A trials' bench time, and their share of their jobs' wall time
	Widths                 []float64   // each trial's interval, high over low
	CalledAt, TriedAt      map[int]int // by m: A/B trials called faster, of those run
	ABJobSecs              float64     // A/B trials' share of their jobs' wall time
}

// add counts t's trials into s. withStat adds its benchstat counts too:
// benchstat runs once per trial, whatever the reps, and each rep's
// results carry the same one.
func (s *summary) add(t summary, withStat bool) {
	s.Called += t.Called
	s.AB += t.AB
	s.AA += t.AA
	s.AAWrong += t.AAWrong
	s.AAFaster += t.AAFaster
	if withStat {
		s.AAStat += t.AAStat
		s.AAStatWrong += t.AAStatWrong
	}
	s.AASecs += t.AASecs
	s.AAJobSecs += t.AAJobSecs
	s.ABJobSecs += t.ABJobSecs
	s.ABPairs += t.ABPairs
	s.AAPairs += t.AAPairs
	s.Secs += t.Secs
	s.Widths = append(s.Widths, t.Widths...)
	if s.TriedAt == nil {
		s.CalledAt, s.TriedAt = map[int]int{}, map[int]int{}
	}
	for m, n := range t.TriedAt {
		s.TriedAt[m] += n
		s.CalledAt[m] += t.CalledAt[m]
	}
}

func summarise(o options, rs []result) summary {
	s := summary{CalledAt: map[int]int{}, TriedAt: map[int]int{}}
	for _, r := range rs {
		s.Secs += r.BenchSecs
		if r.CI[0] > 0 {
			s.Widths = append(s.Widths, r.CI[1]/r.CI[0])
		}
		if r.M == 0 {
			s.AA++
			s.AAPairs += r.Pairs
			s.AASecs += r.BenchSecs
			s.AAJobSecs += r.JobSecs
			if r.Verdict != "not-faster" {
				s.AAWrong++
			}
			if r.Verdict == "faster" || r.Verdict == "winner" {
				s.AAFaster++
			}
			if r.Stat.Delta != "" {
				s.AAStat++
			}
			if r.Stat.Delta != "~" && r.Stat.Delta != "" {
				s.AAStatWrong++
			}
			continue
		}
		s.AB++
		s.ABPairs += r.Pairs
		s.ABJobSecs += r.JobSecs
		s.TriedAt[r.M]++
		if r.Verdict == "faster" || r.Verdict == "winner" {
			s.Called++
			s.CalledAt[r.M]++
			if s.Smallest == 0 || o.ratio(r.M) < s.Smallest {
				s.Smallest = o.ratio(r.M)
			}
		}
		if r.Stat.Faster() && (s.SmallestStat == 0 || o.ratio(r.M) < s.SmallestStat) {
			s.SmallestStat = o.ratio(r.M)
		}
	}
	return s
}

// writeSettings prints one row per setting over its reps: the comparison
// of sample lengths at the same time cost.
func writeSettings(w io.Writer, o options, t target, res map[job][]result) {
	ran := 0
	for jb := range res {
		ran = max(ran, jb.Rep+1)
	}
	fmt.Fprintf(w, "\n### %s: sample lengths compared (%d of %d reps run, jobs interleaved)\n\n", t.Name, ran, o.Reps)
	fmt.Fprintln(w, "| setting (sample × most pairs) | smallest called faster, by rep | speedups called faster | mean pairs, A/B / A/A | median interval, high/low | bench time, all trials | A/A claims | load at job starts |")
	fmt.Fprintln(w, "|---|---|---:|---|---:|---:|---:|---|")
	var aa []summary
	for _, st := range o.Samples {
		var all summary
		var smallest, loads []string
		for rep := range o.Reps {
			rs := res[job{st, rep}]
			if len(rs) == 0 {
				continue // never started: -stop-after
			}
			s := summarise(o, rs)
			smallest = append(smallest, orNone(s.Smallest))
			if len(rs) > 0 {
				loads = append(loads, strings.Fields(rs[0].LoadStart)[0])
			}
			all.add(s, rep == 0)
		}
		slices.Sort(all.Widths)
		width := 0.0
		if len(all.Widths) > 0 {
			width = all.Widths[len(all.Widths)/2]
		}
		fmt.Fprintf(w, "| %s | %s | %d of %d | %.1f / %.1f | %.3f | %.0fs | %d of %d | %s |\n", st, strings.Join(smallest, ", "),
			all.Called, all.AB, float64(all.ABPairs)/float64(max(all.AB, 1)), float64(all.AAPairs)/float64(max(all.AA, 1)),
			width, all.Secs, all.AAWrong, all.AA, strings.Join(loads, ", "))
		aa = append(aa, all)
	}
	for i, st := range o.Samples {
		writeAA(w, st, aa[i])
		writePower(w, o, st, aa[i])
	}
}

// minPower is the share of its trials in which a change must be called
// faster for the harness to say the judge finds changes of its size.
const minPower = 0.8

// writePower prints, for each true change, how often it was called
// faster, and the smallest change called faster in at least minPower of
// its trials, with every larger one too.
func writePower(w io.Writer, o options, st setting, s summary) {
	if s.AB == 0 {
		return
	}
	ms := slices.Sorted(maps.Keys(s.TriedAt))
	var parts []string
	smallest, reached := 0.0, true
	for i := len(ms) - 1; i >= 0; i-- {
		m := ms[i]
		k, n := s.CalledAt[m], s.TriedAt[m]
		lo, hi := stats.Wilson(k, n)
		parts = append(parts, fmt.Sprintf("%.3f×: %d of %d, %.0f%% [%.0f%%, %.0f%%]", o.ratio(m), k, n, 100*float64(k)/float64(n), 100*lo, 100*hi))
		reached = reached && float64(k) >= minPower*float64(n)
		if reached {
			smallest = o.ratio(m)
		}
	}
	slices.Reverse(parts)
	fmt.Fprintf(w, "- %s, power: called faster, by true change, %s (95%% Wilson intervals).\n", st, strings.Join(parts, "; "))
	fmt.Fprintf(w, "  Smallest change called faster in %.0f%% of its trials or more, and every larger one too: %s. One A/B trial took %.2f machine minutes, %.1f pairs.\n",
		100*minPower, orNone(smallest), s.ABJobSecs/float64(s.AB)/60, float64(s.ABPairs)/float64(s.AB))
}

// writeAA prints a setting's A/A false-positive rates with their 95%
// intervals, and what one A/A trial costs in machine time.
func writeAA(w io.Writer, st setting, s summary) {
	if s.AA == 0 {
		return
	}
	rate := func(k, n int) string {
		lo, hi := stats.Wilson(k, n)
		return fmt.Sprintf("%d of %d, %.1f%% [%.1f%%, %.1f%%]", k, n, 100*float64(k)/float64(n), 100*lo, 100*hi)
	}
	perTrial := s.AAJobSecs / float64(s.AA) / 60
	fmt.Fprintf(w, "\n- %s, A/A: optimizer called %s anything but not-faster, %s faster or winner (95%% Wilson intervals).\n",
		st, rate(s.AAWrong, s.AA), rate(s.AAFaster, s.AA))
	fmt.Fprintf(w, "  One trial took %.2f machine minutes (its share of its job's wall time; %.1f s of it measuring, %.1f pairs):"+
		" %.1f false claims per 100 machine minutes.\n", perTrial, s.AASecs/float64(s.AA), float64(s.AAPairs)/float64(s.AA),
		100*float64(s.AAWrong)/(s.AAJobSecs/60))
	if s.AAStat > 0 {
		fmt.Fprintf(w, "  benchstat, on %d of these trials: %s a change (p < 0.05).\n", s.AAStat, rate(s.AAStatWrong, s.AAStat))
	}
}

func orNone(x float64) string {
	if x == 0 {
		return "none"
	}
	return fmt.Sprintf("%.3f×", x)
}
