package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/stats"
)

// report is everything the harness prints.
type report struct {
	Command   string
	Runs      []measurement // one per store
	Trials    []trial
	Summaries []summary
	Replays   []replayed // the A/A trials replayed under other orders
	Shape     noiseShape
}

func (r report) writeMarkdown(w io.Writer) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("## Accuracy on the fixture: our method and codeflash's rule on the same samples\n\n")
	p("```\n%s\n```\n\n", r.Command)
	r.writeMachine(w)
	p("\n### Side by side\n\n")
	p("Each row is one kind of trial; every cell counts trials of that row. Codeflash's rule can only accept, so on A/A\n")
	p("its wrong calls are false \"faster\"; ours are \"faster\", \"slower\" or \"mixed\". Intervals are Wilson 95%%.\n\n")
	p("| trials | n | our method | codeflash: baseline first | codeflash: one baseline per job | codeflash: all samples, interleaved |\n")
	p("|---|---:|---|---|---|---|\n")
	for _, s := range r.Summaries {
		what, ours := "called faster", rate(s.Hits(), s.Trials)
		if s.Kind.Name == kindAA {
			what, ours = "wrong calls", rate(s.Wrong(), s.Trials)
		} else if s.Kind.Name == kindX2 {
			ours += fmt.Sprintf("; %d within 8 pairs", s.FasterWithin8)
		}
		p("| %s: %s | %d | %s | %s | %s | %s |\n", s.Kind.Label, what, s.Trials, ours,
			rate(s.CodeflashFirst, s.Trials), rate(s.CodeflashJob, s.Trials), rate(s.CodeflashAll, s.Trials))
	}
	p("\n### Our method in detail\n\n")
	p("Speedup is base/candidate. \"Typical interval\" is the median lower and upper bound over the trials; \"all pairs\" is\n")
	p("the ratio over every pair of every trial of the row (the change's real ratio on this machine, this run);\n")
	p("pair σ is the median over trials of the robust spread (1.4826 × MAD) of ln(candidate/base) per pair.\n\n")
	p("| trials | n | faster | slower | not-faster | mixed | settled | pairs mean / max | median speedup | typical interval | all pairs | pair σ |\n")
	p("|---|---:|---:|---:|---:|---:|---:|---|---:|---|---:|---:|\n")
	for _, s := range r.Summaries {
		p("| %s | %d | %d | %d | %d | %d | %d | %.1f / %d | %.3f | [%.3f, %.3f] | %.3f | %.3f |\n",
			s.Kind.Label, s.Trials, s.Verdicts["faster"], s.Verdicts["slower"], s.Verdicts["not-faster"],
			s.Verdicts["mixed"], s.Settled, s.MeanPairs(), s.PairsMax, s.Speedup, s.Low, s.High, s.Pooled, s.Sigma)
	}
	for _, s := range r.Summaries {
		if s.Errors > 0 {
			p("\n%d %s trials have no samples (failed or cut off) and are left out.\n", s.Errors, s.Kind.Label)
		}
	}
	r.writeReplays(w)
	r.writeGoals(w)
}

func (r report) writeReplays(w io.Writer) {
	if len(r.Replays) == 0 {
		return
	}
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("\n### A/A trials replayed under other orders\n\n")
	p("Both sides of an A/A pair run the same code, so the two samples of a pair can be relabelled and judged again\n")
	p("by our statistics (CLI defaults), from the same raw samples. Lag-1 autocorrelation of the A/A noise, in the\n")
	p("order the samples were taken: %.3f between samples (of ln value), %.3f between consecutive pairs' log-ratios.\n\n",
		r.Shape.Samples, r.Shape.Pairs)
	p("| order within each pair | replays | called faster | called slower | mixed | any claim |\n")
	p("|---|---:|---:|---:|---:|---:|\n")
	for _, x := range r.Replays {
		p("| %s | %d | %.2f%% | %.2f%% | %.2f%% | %.2f%% |\n", x.Order.Name, x.Replays,
			100*frac(x.Faster, x.Replays), 100*frac(x.Slower, x.Replays), 100*frac(x.Mixed, x.Replays),
			100*frac(x.Faster+x.Slower+x.Mixed, x.Replays))
	}
	p("\nA random order replays each trial %d times; its rates still rest on the same %d trials.\n",
		r.Replays[len(r.Replays)-1].Order.Reps, r.Replays[0].Replays)
}

func (r report) writeMachine(w io.Writer) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	for _, m := range r.Runs {
		indent := ""
		if len(r.Runs) > 1 || m.Command != r.Command {
			indent = "  "
			p("- Store %s", m.Store)
			if m.Command != "" {
				p(", measured by `%s`", m.Command)
			}
			p("\n")
		}
		if m.Start.Time.IsZero() {
			p("%s- the machine it was measured on was not recorded (no %s next to it)\n", indent, measurementFile)
			continue
		}
		a, b := m.Start, m.End
		p("%s- Machine: %s, %d CPUs, %s, Linux %s; benchmark processes can be pinned to one CPU: %v (the CLI pins them unless given --no-pin)\n",
			indent, a.CPU, a.Cores, a.Go, a.Kernel, a.CanPin)
		p("%s- Measured %s to %s (%s); load average %s at the start, %s at the end;\n", indent,
			a.Time.UTC().Format("2006-01-02 15:04"), b.Time.UTC().Format("15:04 MST"),
			b.Time.Sub(a.Time).Round(time.Second), a.Load, b.Load)
		p("%s  CPU pressure at the end (share of time some task waited for a CPU, %%): %s\n", indent, b.Pressure)
	}
	p("- Jobs: %d, trials: %d\n", countJobs(r.Trials), len(r.Trials))
}

// writeGoals checks issue 3's goals against this run.
func (r report) writeGoals(w io.Writer) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("\n### Issue 3's goals, this run\n\n")
	for _, s := range r.Summaries {
		switch s.Kind.Name {
		case kindAA:
			fp, cf := frac(s.Wrong(), s.Trials), frac(s.CodeflashFirst, s.Trials)
			_, up := stats.Wilson(s.Wrong(), s.Trials)
			p("- A/A false positives at most 1%%, and codeflash's rule worse: ours %.1f%% (95%% upper bound %.1f%%), codeflash %.1f%% (baseline first): %s\n",
				100*fp, 100*up, 100*cf, met(fp <= 0.01 && cf > fp))
		case kindX2:
			p("- A clear 2× speedup settled in at most 8 pairs: %d of %d called faster within 8 pairs (mean %.1f, max %d pairs): %s\n",
				s.FasterWithin8, s.Trials, s.MeanPairs(), s.PairsMax, met(s.FasterWithin8 == s.Trials))
		case kindX125:
			p("- A 1.25× change (%.3f× here) called faster, its interval excluding 1.05: %d of %d: %s\n",
				s.Pooled, s.Hits(), s.Trials, met(s.Hits() == s.Trials))
		}
	}
}

func met(ok bool) string {
	if ok {
		return "**met**"
	}
	return "**missed**"
}

func frac(k, n int) float64 {
	if n == 0 {
		return nan
	}
	return float64(k) / float64(n)
}

// rate formats k of n with its percentage and Wilson 95% interval.
func rate(k, n int) string {
	lo, hi := stats.Wilson(k, n)
	return fmt.Sprintf("%d (%.1f%%, %.1f–%.1f%%)", k, 100*frac(k, n), 100*lo, 100*hi)
}

func countJobs(ts []trial) int {
	seen := map[string]bool{}
	for _, t := range ts {
		seen[t.Job] = true
	}
	return len(seen)
}

// writeCSV writes one row per trial.
func writeCSV(w io.Writer, ts []trial) error {
	cw := csv.NewWriter(w)
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	b := strconv.FormatBool
	cw.Write([]string{"job", "trial", "kind", "seq", "verdict", "speedup", "low", "high", "pairs", "settled",
		"pair_sigma", "cf_first", "cf_job", "cf_all", "cf_first_gain", "cf_job_gain", "cf_all_gain", "log_ratios"})
	for _, t := range ts {
		lr := make([]string, len(t.LogRatios))
		for i, x := range t.LogRatios {
			lr[i] = strconv.FormatFloat(x, 'f', 4, 64)
		}
		c := t.Codeflash
		cw.Write([]string{t.Job, t.Name, t.Kind, strconv.Itoa(t.Seq), t.Verdict, f(t.Speedup), f(t.Low), f(t.High),
			strconv.Itoa(t.Pairs), b(t.Settled), f(t.Sigma), b(c.First), b(c.Job), b(c.All),
			f(c.FirstGain), f(c.JobGain), f(c.AllGain), strings.Join(lr, " ")})
	}
	cw.Flush()
	return cw.Error()
}
