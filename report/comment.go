package report

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/optimizer-dev/optimizer/result"
	"github.com/optimizer-dev/optimizer/stats"
)

// commentMarker opens every comment optimizer ci writes, so that a workflow
// can find its earlier comment and update it rather than add another.
const commentMarker = "<!-- optimizer ci -->"

// Comment writes the pull request comment for the head g judged. It has a
// one-line headline (verdict, speedup and interval, the gate), and a table
// of only the benchmarks that changed significantly. Everything else is
// folded in <details>. It names no path of the machine it ran on: paths
// under the repository, or under any of roots, are made relative.
func Comment(w io.Writer, rep *result.Report, g Gate, roots ...string) error {
	var buf bytes.Buffer
	ew := &errWriter{w: &buf}
	c := g.Head
	fmt.Fprintln(ew, commentMarker)
	fmt.Fprintf(ew, "### optimizer: %s\n\n", commentHeadline(rep, g))
	fmt.Fprintf(ew, "Head %s against the merge base %s: %s.\n\n", code(c.Name), code(ShortHash(rep.Base)), commentEffort(rep, c))

	if e := c.TestEdits; e != nil && e.Summary() != "" {
		fmt.Fprintf(ew, "Test edits: %s.\n\n", mdText(e.Summary()))
	}
	if c.Failure != nil {
		writeCommentFailure(ew, c.Failure)
	}
	writeCommentChanged(ew, rep, c)
	if unsettled := unsettledBenchmarks(c, rep.MinSpeedup); len(unsettled) > 0 {
		fmt.Fprintf(ew, "Not settled when the time ran out (more pairs could still move them across a threshold): %s.\n\n",
			strings.Join(unsettled, ", "))
	}
	if len(rep.Candidates) > 1 {
		writeCommentCandidates(ew, rep)
	}
	if len(c.Benchmarks) > 0 {
		fmt.Fprintf(ew, "<details><summary>Every benchmark row (%d)</summary>\n\n", len(c.Benchmarks))
		writeMarkdownBenchmarks(ew, c.Benchmarks, rep.MinSpeedup)
		fmt.Fprint(ew, "\n</details>\n\n")
	}
	if rep.Profile != nil {
		fmt.Fprint(ew, "<details><summary>Profile</summary>\n\n")
		if err := rep.Profile.WriteMarkdown(ew); err != nil {
			return err
		}
		fmt.Fprint(ew, "\n</details>\n\n")
	}
	if len(rep.Warnings) > 0 {
		fmt.Fprint(ew, "<details><summary>Warnings</summary>\n\n")
		for _, x := range rep.Warnings {
			fmt.Fprintf(ew, "- %s\n", mdText(x))
		}
		fmt.Fprint(ew, "\n</details>\n\n")
	}
	fmt.Fprintf(ew, "<details><summary>Method</summary>\n\n%s\n\n</details>\n", commentMethod(rep))
	if ew.err != nil {
		return ew.err
	}
	b := buf.Bytes()
	for _, root := range append(roots, rep.Repo) {
		b = scrubPaths(b, root)
	}
	_, err := w.Write(b)
	return err
}

// commentHeadline is the comment's one line: what the head is, with its
// evidence, and the gate's outcome.
func commentHeadline(rep *result.Report, g Gate) string {
	c := g.Head
	outcome := "gate passed"
	if !g.Passed() {
		outcome = "**gate failed**"
		if len(g.Reasons) > 0 {
			names := make([]string, len(g.Reasons))
			for i, r := range g.Reasons {
				names[i] = r.Gate
			}
			outcome += " (" + strings.Join(names, ", ") + ")"
		}
	}
	var what string
	switch c.Verdict {
	case result.VerdictFailed:
		what = "**failed**: " + mdText(Reason(rep, c))
	case result.VerdictPending:
		what = "**not finished**: the job stopped before the head was judged"
	case result.VerdictDuplicate:
		what = "**no change**: the head's tree equals the base's"
	case result.VerdictPassed:
		what = "**tests pass**, nothing measured"
		if c.Note != "" {
			what += ": " + mdText(c.Note)
		}
	case result.VerdictWinner, result.VerdictFaster:
		what = fmt.Sprintf("**faster**, %s %s", speedupText(c.Speedup), ciFor(rep, c))
		if n := len(c.FasterOn); n > 0 && n < timedBenchmarks(c) {
			what += fmt.Sprintf("; faster on %d of %d benchmarks", n, timedBenchmarks(c))
		}
	case result.VerdictSlower:
		what = fmt.Sprintf("**slower**, %s %s", slowdownText(c.Speedup), slowdownCI(c.CI))
		if n := len(c.SlowerOn); n > 0 && n < timedBenchmarks(c) {
			what += fmt.Sprintf("; slower on %d of %d benchmarks", n, timedBenchmarks(c))
		}
	case result.VerdictOverfit, result.VerdictSuspect, result.VerdictLayoutSensitive:
		what = fmt.Sprintf("**%s**, %s %s: %s", c.Verdict, speedupText(c.Speedup), ciFor(rep, c), mdText(Reason(rep, c)))
	case result.VerdictMixed:
		f, s := countBenchmarks(c, rep.MinSpeedup)
		what = fmt.Sprintf("**mixed**, faster on %d and slower on %d of %d benchmarks (%s overall %s)",
			f, s, timedBenchmarks(c), speedupText(c.Speedup), ciFor(rep, c))
	default:
		if c.Unsettled {
			what = fmt.Sprintf("**not settled**, %s %s after %d pairs", speedupText(c.Speedup), ciFor(rep, c), c.Pairs)
		} else {
			what = fmt.Sprintf("**no significant speedup**, %s %s", speedupText(c.Speedup), ciFor(rep, c))
		}
		if f, _ := countBenchmarks(c, rep.MinSpeedup); f > 0 {
			what += fmt.Sprintf("; faster on %d of %d benchmarks", f, timedBenchmarks(c))
		}
	}
	return what + " · " + outcome
}

// slowdownCI is a speedup interval below 1 as a slowdown interval:
// [0.47×, 0.53×] is [1.89×, 2.13×].
func slowdownCI(ci *[2]float64, marks ...float64) string {
	if ci == nil || ci[0] <= 0 || ci[1] <= 0 {
		return "-"
	}
	return ciText([2]float64{1 / ci[1], 1 / ci[0]}, marks...)
}

// countBenchmarks counts c's timed benchmarks that are significantly
// faster beyond the threshold, and significantly slower beyond it.
func countBenchmarks(c result.CandidateResult, minSpeedup float64) (faster, slower int) {
	for _, b := range c.Benchmarks {
		switch {
		case b.Aside():
		case c.BenchFaster(b, minSpeedup):
			faster++
		case c.BenchSlower(b, minSpeedup):
			slower++
		}
	}
	return faster, slower
}

func timedBenchmarks(c result.CandidateResult) int {
	n := 0
	for _, b := range c.Benchmarks {
		if !b.Aside() {
			n++
		}
	}
	return n
}

// commentEffort says how much measuring stands behind the verdict.
func commentEffort(rep *result.Report, c result.CandidateResult) string {
	switch {
	case c.Pairs > 0:
		return fmt.Sprintf("%d interleaved pairs on one machine, %s in all", c.Pairs, durationText(rep.Seconds))
	case rep.Seconds > 0:
		return durationText(rep.Seconds) + " in all"
	}
	return "not timed"
}

func durationText(s float64) string {
	if s < 60 {
		return fmt.Sprintf("%.0fs", s)
	}
	return fmt.Sprintf("%dm%02ds", int(s)/60, int(s)%60)
}

// writeCommentChanged is the short table: the benchmarks whose time changed
// significantly (either way), and the exact metrics that changed at all.
// Bad news comes first: every slower benchmark, then exact metrics that
// grew, then the faster ones and those that shrank.
func writeCommentChanged(w io.Writer, rep *result.Report, c result.CandidateResult) {
	if len(c.Benchmarks) == 0 {
		return
	}
	var groups [4][]result.BenchResult
	for _, b := range c.Benchmarks {
		switch {
		case b.Exact && b.Base == b.Candidate, b.Beside && !b.Increased && !b.Decreased:
		case b.Aside() && b.Increased:
			groups[1] = append(groups[1], b)
		case b.Aside():
			groups[3] = append(groups[3], b)
		case b.Label(rep.MinSpeedup) == result.VerdictSlower:
			groups[0] = append(groups[0], b)
		case b.Label(rep.MinSpeedup) == result.VerdictFaster:
			groups[2] = append(groups[2], b)
		}
	}
	rows := slices.Concat(groups[:]...)
	if len(rows) == 0 {
		fmt.Fprintf(w, "No benchmark changed significantly (threshold %s%%).\n\n", percent(rep.MinSpeedup))
		return
	}
	marks := []float64{1 + rep.MinSpeedup}
	fmt.Fprintln(w, "| benchmark | unit | base | head | change | interval |")
	fmt.Fprintln(w, "|---|---|---:|---:|---|---|")
	for _, b := range rows {
		change, ci := "", ciText(b.CI, marks...)
		switch {
		case b.Exact && b.Increased:
			change, ci = "more (exact)", "-"
		case b.Exact:
			change, ci = "fewer (exact)", "-"
		case b.Increased:
			change, ci = speedupText(1/b.Speedup)+" more", slowdownCI(&b.CI)
		case b.Decreased:
			change = speedupText(b.Speedup) + " less"
			if b.Unit == "allocs/op" {
				change = speedupText(b.Speedup) + " fewer"
			}
		case b.Label(rep.MinSpeedup) == result.VerdictSlower:
			change, ci = slowdownText(b.Speedup), slowdownCI(&b.CI, marks...)
		default:
			change = speedupText(b.Speedup) + " faster"
		}
		base, cand := b.Columns()
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", code(b.Name), mdText(b.Unit),
			valueText(b.Unit, base), valueText(b.Unit, cand), change, ci)
	}
	fmt.Fprintln(w)
}

// unsettledBenchmarks are, for a head whose measuring stopped before it
// was settled, the benchmarks whose interval still straddles a threshold.
func unsettledBenchmarks(c result.CandidateResult, minSpeedup float64) []string {
	if !c.Unsettled {
		return nil
	}
	var out []string
	for _, b := range c.Benchmarks {
		lo, hi := b.CI[0], b.CI[1]
		acrossUp := !stats.FasterBeyond(lo, minSpeedup) && stats.FasterBeyond(hi, minSpeedup)
		acrossDown := stats.SlowerBeyond(lo, minSpeedup) && !stats.SlowerBeyond(hi, minSpeedup)
		if !b.Aside() && hi > 0 && (acrossUp || acrossDown) {
			out = append(out, code(b.Name))
		}
	}
	return out
}

func writeCommentFailure(w io.Writer, f *result.Failure) {
	tests, out := failureDetails(f, 40)
	if tests != "" {
		fmt.Fprintf(w, "Failing tests: %s.\n\n", mdText(tests))
	}
	if len(out) == 0 {
		return
	}
	body := strings.Join(out, "\n")
	fence := fenceFor(body)
	fmt.Fprintf(w, "<details><summary>Output</summary>\n\n%stext\n%s\n%s\n\n</details>\n\n", fence, body, fence)
}

// writeCommentCandidates lists the other candidates of the job, when
// --candidates added some to the head.
func writeCommentCandidates(w io.Writer, rep *result.Report) {
	fmt.Fprintf(w, "<details><summary>Every candidate (%d)</summary>\n\n", len(rep.Candidates))
	fmt.Fprintln(w, "| candidate | verdict | speedup | interval |")
	fmt.Fprintln(w, "|---|---|---:|---|")
	for _, c := range rep.Candidates {
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", code(c.Name), mdText(string(c.Verdict)), speedupText(c.Speedup), ciFor(rep, c))
	}
	fmt.Fprint(w, "\n</details>\n\n")
}

// commentMethod says how the numbers were made, for a reader who doubts them.
func commentMethod(rep *result.Report) string {
	return fmt.Sprintf("Base and head ran on the same machine in the same job, one process per sample, "+
		"in pairs whose order a coin decides. A speedup is base time / head time; the interval is an exact "+
		"Wilcoxon signed-rank interval of the paired ratios, corrected for looking after every pair. "+
		"*Faster* means the lower bound clears %s (--min-speedup %s%%); a benchmark is *slower* beyond the "+
		"threshold when its upper bound is below %s. B/op and allocs/op, averages over the iterations, have intervals too, "+
		"corrected for their number; *more* or *less* means significantly so. "+
		"Every raw sample is in the job's store (the `optimizer.db` artifact, job %s).",
		speedupText(1+rep.MinSpeedup), percent(rep.MinSpeedup), speedupText(1/(1+rep.MinSpeedup)), code(rep.Job))
}

// scrubPaths removes the runner's checkout path from b: paths inside it
// become relative.
func scrubPaths(b []byte, root string) []byte {
	if root == "" || root == "/" {
		return b
	}
	b = bytes.ReplaceAll(b, []byte(root+"/"), nil)
	return bytes.ReplaceAll(b, []byte(root), []byte("."))
}
