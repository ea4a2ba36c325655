package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/profiler"
)

// writeReport writes rep in format: text, json or markdown.
func writeReport(w io.Writer, rep *evaluator.Report, format string) error {
	switch format {
	case formatJSON:
		return writeJSON(w, rep)
	case formatMarkdown:
		return writeMarkdown(w, rep)
	default:
		return writeText(w, rep)
	}
}

// writeJSON writes rep as DESIGN.md's JSON contract: evaluator.Report's
// json tags, indented, nothing else on the stream.
func writeJSON(w io.Writer, rep *evaluator.Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(rep)
}

// The profile section's writers; *profiler.Summary has both.
type (
	textProfile     interface{ WriteText(io.Writer) error }
	markdownProfile interface{ WriteMarkdown(io.Writer) error }
)

// reason says in one line why c got its verdict, in terms of the numbers.
func reason(rep *evaluator.Report, c evaluator.CandidateResult) string {
	threshold := speedupText(1 + rep.MinSpeedup)
	var s string
	switch c.Verdict {
	case evaluator.VerdictWinner:
		s = fmt.Sprintf("%s faster; its interval %s clears %s: the largest significant speedup",
			speedupText(c.Speedup), ciOf(c), threshold)
	case evaluator.VerdictFaster:
		s = fmt.Sprintf("%s faster; its interval %s clears %s, but %s was chosen",
			speedupText(c.Speedup), ciOf(c), threshold, winnerName(rep))
	case evaluator.VerdictNotFaster:
		s = fmt.Sprintf("%s; its interval %s does not clear %s (--min-speedup %s%%)",
			speedupText(c.Speedup), ciOf(c), threshold, percent(rep.MinSpeedup))
	case evaluator.VerdictSlower:
		s = fmt.Sprintf("%s; its interval %s lies below 1×: slower than base", speedupText(c.Speedup), ciOf(c))
	case evaluator.VerdictMixed:
		s = fmt.Sprintf("%s overall, but %s", speedupText(c.Speedup), slowerBenchmarks(c, rep.MinSpeedup))
	case evaluator.VerdictPassed:
		s = "tests pass; no benchmark was configured"
		if c.Note != "" {
			s = "tests pass; " + c.Note
		}
		return s
	case evaluator.VerdictFailed:
		if c.Failure == nil {
			return "failed"
		}
		first, _, _ := strings.Cut(strings.TrimSpace(c.Failure.Message), "\n")
		return fmt.Sprintf("%s failure: %s", c.Failure.Kind, first)
	case evaluator.VerdictDuplicate:
		if c.DuplicateOf == "base" {
			return "produces base's own tree: it changes nothing, so it was not run"
		}
		return fmt.Sprintf("produces the same tree as %s, so it was not run again", c.DuplicateOf)
	case evaluator.VerdictPending:
		if rep.State == "running" {
			return "not finished yet: the job is still running"
		}
		return "not finished: the job stopped first"
	default:
		s = string(c.Verdict)
	}
	if c.Note != "" {
		s += "; " + c.Note
	}
	return s
}

// slowerBenchmarks names the benchmarks that make a candidate mixed.
func slowerBenchmarks(c evaluator.CandidateResult, minSpeedup float64) string {
	var out []string
	for _, b := range c.Benchmarks {
		if b.Verdict == evaluator.VerdictSlower || (!b.Exact && b.CI[1] > 0 && b.CI[1] < 1/(1+minSpeedup)) {
			out = append(out, fmt.Sprintf("%s %s is significantly slower (%s %s)", b.Name, b.Unit, speedupText(b.Speedup), ciText(b.CI)))
		}
	}
	if len(out) == 0 {
		return "some benchmark is significantly slower"
	}
	return strings.Join(out, "; ")
}

func winnerName(rep *evaluator.Report) string {
	if rep.Winner == nil {
		return "another candidate"
	}
	return *rep.Winner
}

// failureDetails are the lines under a failed candidate: the failing tests
// and the first lines of their output.
func failureDetails(f *evaluator.Failure, maxLines int) (tests string, output []string) {
	if f == nil {
		return "", nil
	}
	if len(f.Tests) > 0 {
		tests = listSome(f.Tests, 8)
	}
	lines, more := evaluator.KeyLines(f.Output, maxLines)
	if more > 0 {
		lines = append(lines, fmt.Sprintf("[… %d more lines]", more))
	}
	return tests, lines
}

// writeProfileFiles lists the raw profiles a job keeps, and how to compare
// them with pprof.
func writeProfileFiles(w io.Writer, profile any) {
	s, ok := profile.(*profiler.Summary)
	if !ok || s == nil || len(s.Files) == 0 {
		return
	}
	fmt.Fprintln(w, "\nprofiles kept:")
	for _, f := range s.Files {
		fmt.Fprintf(w, "  %s\n", f)
	}
	if s.SampleType == "cpu" && len(s.Files) >= 2 {
		fmt.Fprintf(w, "compare them with: go tool pprof -diff_base %s %s\n", s.Files[0], s.Files[1])
	}
}

// messageRest is what a failure's message says after its first line, such as
// the last lines a failing command wrote: at most maxLines of them, the last.
func messageRest(msg string, maxLines int) []string {
	_, rest, ok := strings.Cut(strings.TrimSpace(msg), "\n")
	if !ok {
		return nil
	}
	lines := strings.Split(strings.TrimRight(rest, "\n"), "\n")
	if len(lines) > maxLines {
		lines = lines[len(lines)-maxLines:]
	}
	return lines
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// speedupText is 11.80×.
func speedupText(x float64) string {
	if x <= 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return "-"
	}
	return fmt.Sprintf("%.2f×", x)
}

// ciText is [11.10×, 12.60×].
func ciText(ci [2]float64) string {
	if ci == [2]float64{} {
		return "-"
	}
	return fmt.Sprintf("[%s, %s]", speedupText(ci[0]), speedupText(ci[1]))
}

func ciOf(c evaluator.CandidateResult) string {
	if c.CI == nil {
		return "-"
	}
	return ciText(*c.CI)
}

// percent is 5 for 0.05, 2.5 for 0.025.
func percent(frac float64) string {
	return fmt.Sprintf("%.4g", frac*100)
}

func pText(p float64) string {
	switch {
	case p <= 0 || math.IsNaN(p):
		return "-"
	case p < 0.001:
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", p)
}

func pairsText(n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprint(n)
}

func secondsText(s float64) string {
	if s <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1fs", s)
}

// valueText formats a benchmark value for its unit, to three significant
// digits: 51.0µs, 50.0KiB, 2001.
func valueText(unit string, v float64) string {
	switch unit {
	case "sec/op", "sec", "s", "s/op":
		return scaled(v, 1000, []string{"s", "ms", "µs", "ns"}, true)
	case "ns/op":
		return scaled(v*1e-9, 1000, []string{"s", "ms", "µs", "ns"}, true)
	case "B/op", "B":
		return scaled(v, 1024, []string{"B", "KiB", "MiB", "GiB"}, false)
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e9 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// scaled writes v with the unit that keeps it in [1, base). Units run from
// large to small when down is set (seconds), from small to large otherwise.
func scaled(v, base float64, units []string, down bool) string {
	if v == 0 {
		return "0" + units[0]
	}
	i := 0
	if down {
		for i < len(units)-1 && math.Abs(v) < 1 {
			v *= base
			i++
		}
	} else {
		for i < len(units)-1 && math.Abs(v) >= base {
			v /= base
			i++
		}
	}
	return sig3(v) + units[i]
}

// sig3 formats v with three significant digits and no exponent.
func sig3(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

// benchNote is the last column of a benchmark row: its verdict, and for
// exact metrics whether they increased.
func benchNote(b evaluator.BenchResult) string {
	var notes []string
	if b.Verdict != "" {
		notes = append(notes, string(b.Verdict))
	}
	if b.Exact {
		notes = append(notes, "exact")
	}
	if b.Increased {
		notes = append(notes, "increased")
	}
	return strings.Join(notes, ", ")
}
