package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"golang.org/x/perf/benchmath"

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

// Slower is the other direction.
func (r benchstatResult) Slower() bool { return r.Delta != "~" && r.Cand > r.Base }

// Speedup is base's median over the candidate's.
func (r benchstatResult) Speedup() float64 { return r.Base / r.Cand }

// benchstat copies base's tree and the candidate's (base with the
// candidate's files laid over) under scratch, runs the benchmark count
// times in each, base first, and compares them as benchstat does
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
	return fmt.Sprintf("%d × %s, %s, load average at the start %s", runtime.NumCPU(), model, runtime.Version(), loadavg())
}

// writeTable prints one target's results and its summary lines.
func writeTable(w io.Writer, o options, t target, rs []result) {
	mod := t.Module
	if mod == "" {
		mod = "the accuracy fixture (testdata/fixture)"
	}
	fmt.Fprintf(w, "\n## %s: %s, %s\n\n", t.Name, mod, strings.TrimSuffix(strings.TrimPrefix(t.Func, "func "), "("))
	fmt.Fprintf(w, "Base runs its body %d times a call; a candidate %d−m times. Benchmark `%s`.\n\n", o.K, o.K, t.Bench)
	fmt.Fprintln(w, "| trial | true change | optimizer | ratio [interval] | pairs | bench time | benchstat (-count "+fmt.Sprint(o.Count)+") | p | its time | load |")
	fmt.Fprintln(w, "|---|---|---|---|---:|---:|---|---:|---:|---|")
	var smallest, smallestStat float64
	var aa, aaWrong, aaStatWrong int
	for _, r := range rs {
		change := fmt.Sprintf("%.3f×", o.ratio(r.M))
		if r.M == 0 {
			change = "A/A"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %.3f× [%.3f, %.3f] | %d | %.1fs | %s (%.3f×) | %.3f | %.0fs | %s |\n",
			r.Name, change, r.Verdict, r.Speedup, r.CI[0], r.CI[1], r.Pairs, r.BenchSecs,
			r.Stat.Delta, r.Stat.Speedup(), r.Stat.P, r.Stat.Secs, r.Load)
		called := r.Verdict == "faster" || r.Verdict == "winner"
		if r.M == 0 {
			aa++
			if r.Verdict != "not-faster" {
				aaWrong++
			}
			if r.Stat.Delta != "~" {
				aaStatWrong++
			}
			continue
		}
		if called && (smallest == 0 || o.ratio(r.M) < smallest) {
			smallest = o.ratio(r.M)
		}
		if r.Stat.Faster() && (smallestStat == 0 || o.ratio(r.M) < smallestStat) {
			smallestStat = o.ratio(r.M)
		}
	}
	fmt.Fprintf(w, "\n- smallest change called faster: optimizer %s, benchstat %s\n", orNone(smallest), orNone(smallestStat))
	fmt.Fprintf(w, "- A/A: optimizer called %d of %d anything but not-faster; benchstat called %d of %d a change (p < 0.05)\n",
		aaWrong, aa, aaStatWrong, aa)
}

func orNone(x float64) string {
	if x == 0 {
		return "none"
	}
	return fmt.Sprintf("%.3f×", x)
}
