package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/optimizer-dev/optimizer/result"
)

// Markdown writes rep for a pull-request comment or a README: the same
// content as Text, as tables, with failure output in collapsed blocks.
func Markdown(w io.Writer, rep *result.Report) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "## optimizer: %s\n\n", markdownWinner(rep))
	state := rep.State
	if state == "" {
		state = "finished"
	}
	fmt.Fprintf(ew, "Job %s %s in %.1fs%s: %s at base %s, %s, min speedup %s%%.\n\n",
		code(rep.Job), state, rep.Seconds, phasesText(rep.Phases), code(rep.Repo), code(ShortHash(rep.Base)), Plural(rep.Parallel, "slot"), percent(rep.MinSpeedup))

	fmt.Fprintln(ew, "| candidate | verdict | speedup | interval | pairs | time |")
	fmt.Fprintln(ew, "|---|---|---:|---|---:|---:|")
	for _, c := range rep.Candidates {
		verdict := string(c.Verdict)
		if c.Failure != nil {
			verdict += " (" + string(c.Failure.Kind) + ")"
		}
		if c.Qualifier != "" {
			verdict += " (" + c.Qualifier + ")"
		}
		if c.Verdict == result.VerdictWinner {
			verdict = "**" + verdict + "**"
		}
		fmt.Fprintf(ew, "| %s | %s | %s | %s | %s | %s |\n", code(c.Name), verdict,
			speedupText(c.Speedup), ciFor(rep, c), pairsText(c.Pairs), secondsText(c.Seconds))
	}

	fmt.Fprintf(ew, "\n### Verdicts\n\n")
	for _, c := range rep.Candidates {
		fmt.Fprintf(ew, "- %s: %s\n", code(c.Name), mdText(Reason(rep, c)))
		if c.TestEdits.Flagged() {
			fmt.Fprintf(ew, "  - edits the judge: %s\n", mdText(c.TestEdits.Summary()))
		}
		if i := c.Interference; i.Significant() {
			fmt.Fprintf(ew, "  - measured on a busy machine: %s\n", mdText(i.Summary()))
		}
		if r := reusedText(c); r != "" {
			fmt.Fprintf(ew, "  - reused: %s\n", mdText(r))
		}
		if c.Verdict == result.VerdictFailed {
			writeMarkdownFailure(ew, c.Failure)
		}
	}
	for _, c := range rep.Candidates {
		if len(c.Benchmarks) > 0 {
			fmt.Fprintf(ew, "\n### Benchmarks: %s vs base\n\n", code(c.Name))
			writeMarkdownBenchmarks(ew, c.Benchmarks, rep.MinSpeedup)
		}
	}
	if rep.Profile != nil {
		fmt.Fprintln(ew)
		if err := rep.Profile.WriteMarkdown(ew); err != nil {
			return err
		}
	}
	if rep.ProfileNote != "" {
		fmt.Fprintf(ew, "\nNot profiled: %s.\n", mdText(rep.ProfileNote))
	}
	if n := rep.Noise; n != nil {
		fmt.Fprintf(ew, "\nNoise floor: ±%s%% (base against itself, %d pairs).\n", percent(n.Floor), n.Pairs)
	}
	if len(rep.Warnings) > 0 {
		fmt.Fprintf(ew, "\n### Warnings\n\n")
		for _, x := range rep.Warnings {
			fmt.Fprintf(ew, "- %s\n", mdText(x))
		}
	}
	return ew.err
}

// markdownWinner is the heading's news: "winner `fast`, 11.80× faster [...]".
func markdownWinner(rep *result.Report) string {
	if rep.Winner == nil {
		return "no winner" + strings.TrimPrefix(NoWinner(rep), "none")
	}
	for _, c := range rep.Candidates {
		if c.Name == *rep.Winner && c.Qualifier == result.QualifierFasterOnSome {
			return fmt.Sprintf("winner %s, %s", code(c.Name), mdText(fasterOnSome(c)))
		}
		if c.Name == *rep.Winner {
			return fmt.Sprintf("winner %s, %s faster %s%s", code(c.Name), speedupText(c.Speedup), ciFor(rep, c), mdText(changedOn(c)))
		}
	}
	return "winner " + code(*rep.Winner)
}

func writeMarkdownFailure(w io.Writer, f *result.Failure) {
	tests, out := failureDetails(f, outputLines)
	if tests != "" {
		fmt.Fprintf(w, "  - tests: %s\n", mdText(tests))
	}
	if f != nil {
		out = append(messageRest(f.Message, outputLines), out...)
	}
	if len(out) == 0 {
		return
	}
	body := strings.Join(out, "\n")
	fence := fenceFor(body)
	fmt.Fprintf(w, "  <details><summary>output</summary>\n\n")
	fmt.Fprintf(w, "  %stext\n", fence)
	for _, l := range out {
		fmt.Fprintf(w, "  %s\n", l)
	}
	fmt.Fprintf(w, "  %s\n\n  </details>\n", fence)
}

func writeMarkdownBenchmarks(w io.Writer, bs []result.BenchResult, minSpeedup float64) {
	fmt.Fprintln(w, "| benchmark | unit | base | candidate | speedup | interval | p | pairs | note |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---|---:|---:|---|")
	for _, b := range bs {
		speedup, ci, p := speedupText(b.Speedup), ciText(b.CI, 1+minSpeedup), pText(b.P)
		if b.Exact {
			speedup, ci, p = "-", "-", "-"
		}
		base, cand := b.Columns()
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", code(b.Name), mdText(b.Unit),
			valueText(b.Unit, base), valueText(b.Unit, cand), speedup, ci, p, pairsText(b.Pairs), benchNote(b, minSpeedup))
	}
	if note := tableNote(bs); note != "" {
		fmt.Fprintf(w, "\n%s\n", mdText(note))
	}
}

// code is s as a Markdown code span that survives inside a table.
func code(s string) string {
	s = strings.NewReplacer("`", "'", "\n", " ", "|", `\|`).Replace(s)
	return "`" + s + "`"
}

var mdReplacer = strings.NewReplacer(
	`\`, `\\`, "|", `\|`, "*", `\*`, "_", `\_`, "<", "&lt;", ">", "&gt;", "`", "\\`", "\n", " ",
)

// mdText is plain text with Markdown's special characters escaped.
func mdText(s string) string { return mdReplacer.Replace(s) }

// fenceFor is a code fence longer than any run of backticks in body.
func fenceFor(body string) string {
	longest, run := 0, 0
	for _, r := range body {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}
