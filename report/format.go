package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/optimizer-dev/optimizer/excerpt"

	"github.com/optimizer-dev/optimizer/profiler"
	"github.com/optimizer-dev/optimizer/result"
	"github.com/optimizer-dev/optimizer/stats"
)

// The formats Write knows.
const (
	FormatText     = "text"
	FormatJSON     = "json"
	FormatMarkdown = "markdown"
)

// Write writes rep in format: FormatText (the default for any other
// value), FormatJSON or FormatMarkdown.
func Write(w io.Writer, rep *result.Report, format string) error {
	switch format {
	case FormatJSON:
		return JSON(w, rep)
	case FormatMarkdown:
		return Markdown(w, rep)
	default:
		return Text(w, rep)
	}
}

// JSON writes rep as DESIGN.md's JSON contract: result.Report's json
// tags, indented, nothing else on the stream.
func JSON(w io.Writer, rep *result.Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(rep.Labelled())
}

// Plural is "1 slot" or "2 slots": what counted, in the CLI's messages and the reports.
func Plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// Reason says in one line why c got its verdict, in terms of the numbers. A
// candidate of an unfinished job has no final verdict yet. Then Reason says
// what it is doing, or was doing when the job stopped.
func Reason(rep *result.Report, c result.CandidateResult) string {
	if c.Live != nil && Unfinished(rep) {
		return liveReason(rep, c)
	}
	threshold := speedupText(1 + rep.MinSpeedup)
	ci := ciFor(rep, c)
	var s string
	switch {
	case c.Qualifier == result.QualifierFasterOnSome && c.Verdict == result.VerdictWinner:
		s = fmt.Sprintf("%s; %s overall %s: the largest speedup among the candidates found faster",
			fasterOnSome(c), speedupText(c.Speedup), ci)
	case c.Qualifier == result.QualifierFasterOnSome:
		s = fmt.Sprintf("%s; %s overall, its interval %s does not clear %s", fasterOnSome(c), speedupText(c.Speedup), ci, threshold)
		if c.Verdict == result.VerdictNotFaster && rep.Winner != nil {
			s += fmt.Sprintf(", and %s was chosen", winnerName(rep))
		}
	case c.Verdict == result.VerdictWinner:
		s = fmt.Sprintf("%s faster; its interval %s clears %s: the largest significant speedup",
			speedupText(c.Speedup), ci, threshold)
		s += changedOn(c)
	case c.Verdict == result.VerdictFaster && rep.Winner == nil && Unfinished(rep):
		s = fmt.Sprintf("%s faster; its interval %s clears %s; %s",
			speedupText(c.Speedup), ci, threshold, choosing(rep))
		s += changedOn(c)
	case c.Verdict == result.VerdictFaster:
		s = fmt.Sprintf("%s faster; its interval %s clears %s, but %s was chosen",
			speedupText(c.Speedup), ci, threshold, winnerName(rep))
		s += changedOn(c)
	case c.Verdict == result.VerdictNotFaster && c.CI != nil && stats.FasterBeyond(c.CI[0], rep.MinSpeedup):
		// Stopped (by a deadline) at a look whose pairs cannot reach the
		// confidence a claim needs: the interval shown is the widest those
		// pairs give, and backs nothing.
		s = fmt.Sprintf("%s; too few pairs for a claim: its interval %s is short of the confidence a claim needs",
			speedupText(c.Speedup), ci)
	case c.Verdict == result.VerdictNotFaster:
		s = fmt.Sprintf("%s; its interval %s does not clear %s (--min-speedup %s%%)",
			speedupText(c.Speedup), ci, threshold, percent(rep.MinSpeedup))
	case c.Verdict == result.VerdictSlower:
		s = fmt.Sprintf("%s; its interval %s lies below 1×: slower than base", speedupText(c.Speedup), ci)
		s += changedOn(c)
	case c.Verdict == result.VerdictOverfit:
		s = fmt.Sprintf("%s overall %s, but its speedup does not carry over to the held-out benchmarks", speedupText(c.Speedup), ci)
	case c.Verdict == result.VerdictLayoutSensitive:
		s = fmt.Sprintf("%s overall %s, but faster in one code layout only", speedupText(c.Speedup), ci)
	case c.Verdict == result.VerdictSuspect:
		s = fmt.Sprintf("%s overall %s, but not by doing the work faster: %s", speedupText(c.Speedup), ci, hacksText(c.Hacks))
	case c.Verdict == result.VerdictMixed:
		s = fmt.Sprintf("%s overall, but the benchmarks disagree: %s", speedupText(c.Speedup), slowerBenchmarks(c, rep.MinSpeedup))
		if fast := namedRows(c, c.FasterOn); fast != "" {
			s += "; faster: " + fast
		}
	default:
		return otherReason(rep, c)
	}
	if c.Note != "" {
		s += "; " + c.Note
	}
	return s
}

// Unfinished reports whether rep is the report of a job that has not
// finished: running, or stopped before its end. Its verdicts may not be
// final: no winner is chosen before every candidate is measured.
func Unfinished(rep *result.Report) bool {
	return rep.State != "" && rep.State != "finished"
}

// liveReason is what c, still without its final verdict, is doing.
func liveReason(rep *result.Report, c result.CandidateResult) string {
	if rep.State == "running" || rep.State == "queued" {
		return c.Live.Text()
	}
	switch c.Live.Stage {
	case result.StageQueued, result.StageTesting:
		return "not finished: the job stopped first"
	case result.StageBenchQueue:
		return "tests pass; the job stopped before its benchmark"
	}
	return "tests pass; the job stopped during its benchmark"
}

// choosing says, of a job with no winner yet, when it will have one.
func choosing(rep *result.Report) string {
	if rep.State == "running" || rep.State == "queued" {
		return "the winner is chosen once every candidate is measured"
	}
	return "the job stopped before a winner was chosen"
}

// fasterOnSome is "faster on 2 of 13 benchmarks, none slower: BenchmarkA
// 2.50× [2.10×, 2.90×], BenchmarkB …".
func fasterOnSome(c result.CandidateResult) string {
	return fmt.Sprintf("faster on %d of %d benchmarks, none slower: %s", len(c.FasterOn), timedBenchmarks(c), namedRows(c, c.FasterOn))
}

// changedOn is "; faster on 2 of 8 benchmarks: BenchmarkA 3.00× [2.70×,
// 3.30×], …" for a candidate found faster (or slower) overall. It names the
// benchmarks that changed, when its claims on single benchmarks (FasterOn,
// SlowerOn) name some of its benchmarks but not all. It is "" when they
// name all of them or none, where the aggregate says as much.
func changedOn(c result.CandidateResult) string {
	names, what := c.FasterOn, "faster"
	if c.Verdict == result.VerdictSlower {
		names, what = c.SlowerOn, "slower"
	}
	timed := timedBenchmarks(c)
	if len(names) == 0 || len(names) >= timed {
		return ""
	}
	return fmt.Sprintf("; %s on %d of %d benchmarks: %s", what, len(names), timed, namedRows(c, names))
}

// namedRows lists the timed benchmark rows named, with their speedups.
func namedRows(c result.CandidateResult, names []string) string {
	var out []string
	for _, name := range names {
		for _, b := range c.Benchmarks {
			if b.Name == name && !b.Aside() {
				out = append(out, fmt.Sprintf("%s %s %s", b.Name, speedupText(b.Speedup), ciText(b.CI)))
				break
			}
		}
	}
	return ListSome(out, 6)
}

// otherReason is the reason of the verdicts that carry no speedup.
func otherReason(rep *result.Report, c result.CandidateResult) string {
	var s string
	switch c.Verdict {
	case result.VerdictPassed:
		s = "tests pass; no benchmark was configured"
		if c.Note != "" {
			s = "tests pass; " + c.Note
		}
		return s
	case result.VerdictFailed:
		if c.Failure == nil {
			return "failed"
		}
		first, _, _ := strings.Cut(strings.TrimSpace(c.Failure.Message), "\n")
		return fmt.Sprintf("%s failure: %s", c.Failure.Kind, first)
	case result.VerdictDuplicate:
		if c.DuplicateOf == "base" {
			return "produces base's own tree: it changes nothing, so it was not run"
		}
		return fmt.Sprintf("produces the same tree as %s, so it was not run again", c.DuplicateOf)
	case result.VerdictPending:
		if c.Note != "" && rep.State == "finished" {
			return c.Note // left to another shard
		}
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
func slowerBenchmarks(c result.CandidateResult, minSpeedup float64) string {
	var out []string
	for _, b := range c.Benchmarks {
		if c.BenchSlower(b, minSpeedup) {
			out = append(out, fmt.Sprintf("%s %s is significantly slower (%s %s)", b.Name, b.Unit, speedupText(b.Speedup), ciText(b.CI)))
		}
	}
	if len(out) == 0 {
		return "some benchmark is significantly slower"
	}
	return strings.Join(out, "; ")
}

func winnerName(rep *result.Report) string {
	if rep.Winner == nil {
		return "another candidate"
	}
	return *rep.Winner
}

// failureDetails are the lines under a failed candidate: the failing tests
// and the first lines of their output.
func failureDetails(f *result.Failure, maxLines int) (tests string, output []string) {
	if f == nil {
		return "", nil
	}
	if len(f.Tests) > 0 {
		tests = ListSome(f.Tests, 8)
	}
	lines, more := excerpt.KeyLines(f.Output, maxLines)
	if more > 0 {
		lines = append(lines, fmt.Sprintf("[… %d more lines]", more))
	}
	return tests, lines
}

// ProfileText writes rep's profile section as text, with the raw profiles
// it kept; it reports false, having written nothing, when rep has none.
func ProfileText(w io.Writer, rep *result.Report) (bool, error) {
	if rep.Profile == nil {
		return false, nil
	}
	if err := rep.Profile.WriteText(w); err != nil {
		return true, err
	}
	writeProfileFiles(w, rep.Profile)
	return true, nil
}

// writeProfileFiles lists the raw profiles a job keeps, and how to compare
// them with pprof.
func writeProfileFiles(w io.Writer, s *profiler.Summary) {
	if len(s.Files) == 0 {
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

// SpeedupText is a ratio to three significant digits: 11.8×, 0.550×.
func SpeedupText(x float64) string { return speedupText(x) }

// IntervalText is [11.1×, 12.6×], each bound with the digits that keep it
// apart from 1× and from marks.
func IntervalText(ci [2]float64, marks ...float64) string { return ciText(ci, marks...) }

// speedupText is 11.8×.
func speedupText(x float64) string {
	if x <= 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return "-"
	}
	return SigDigits(x, 3) + "×"
}

// SigDigits formats x > 0 to n significant digits with no exponent: 788.27
// is "788" and 2245.07 "2250" at three digits, 1.8923 is "1.89", 0.55 is
// "0.550". More digits than the measurement carries would be false precision.
func SigDigits(x float64, n int) string {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', n, 64), 64)
	decimals := max(n-1-int(math.Floor(math.Log10(math.Abs(r)))), 0)
	return strconv.FormatFloat(r, 'f', decimals, 64)
}

// ciText is [11.1×, 12.6×], each bound with the digits that keep it apart
// from 1× and from marks (see boundText).
func ciText(ci [2]float64, marks ...float64) string {
	if ci == [2]float64{} {
		return "-"
	}
	marks = append([]float64{1}, marks...)
	return fmt.Sprintf("[%s, %s]", boundText(ci[0], marks), boundText(ci[1], marks))
}

func ciOf(c result.CandidateResult, marks ...float64) string {
	if c.CI == nil {
		return "-"
	}
	return ciText(*c.CI, marks...)
}

// ciFor is c's aggregate interval, its bounds printed with enough digits
// that none reads as equal to the threshold, or to 1×, when it is not. So
// 1.0477 beside "does not clear 1.05×" is "1.048×", not "1.05×".
func ciFor(rep *result.Report, c result.CandidateResult) string {
	return ciOf(c, 1+rep.MinSpeedup)
}

// boundText is speedupText(x), with more significant digits while it would
// print the same as one of marks that x differs from. So a bound shows
// which side of a threshold it falls on.
func boundText(x float64, marks []float64) string {
	s := speedupText(x)
	for digits := 4; digits <= 7 && s != "-"; digits++ {
		clash := false
		for _, m := range marks {
			clash = clash || (x != m && s == SigDigits(m, digits-1)+"×")
		}
		if !clash {
			return s
		}
		s = SigDigits(x, digits) + "×"
	}
	return s
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

// tableNote says under a benchmark table which statistic each column
// shows. The candidate's column is base's median over the speedup, so that
// the three agree (result.BenchResult.Columns). The intervals and p-values
// do not come from the same test at the same level.
func tableNote(bs []result.BenchResult) string {
	timed := slices.ContainsFunc(bs, func(b result.BenchResult) bool { return !b.Aside() })
	if !timed {
		return ""
	}
	note := "base: median of base's samples; candidate: base / speedup"
	if level := levelNote(bs); level != "" {
		note += "; " + level
	}
	return note
}

// levelNote says what a benchmark table's intervals and p-values are: the
// intervals are corrected for the looks and for the number of benchmarks,
// the p-values are not. It is empty for reports that predate the level.
func levelNote(bs []result.BenchResult) string {
	level, timed := 0.0, 0
	for _, b := range bs {
		if !b.Aside() {
			level = max(level, b.Level)
			timed++
		}
	}
	if level == 0 {
		return ""
	}
	what := "the looks"
	if timed > 1 {
		what = fmt.Sprintf("the looks and the %d benchmarks", timed)
	}
	return fmt.Sprintf("intervals: %s%% confidence, adjusted for %s; P: unadjusted, this benchmark alone", levelText(level), what)
}

// levelText is 99.9 for 0.99902, with the digits a level near 1 needs.
func levelText(level float64) string {
	for digits := 1; digits < 6; digits++ {
		s := fmt.Sprintf("%.*f", digits, 100*level)
		if s != "100."+strings.Repeat("0", digits) {
			return s
		}
	}
	return fmt.Sprintf("%.6f", 100*level)
}

// benchNote is the last column of a benchmark row: its label (the one
// rule, result.BenchResult.Label), and for a metric beside the judged one
// whether it significantly increased or decreased.
func benchNote(b result.BenchResult, minSpeedup float64) string {
	var notes []string
	if v := b.Label(minSpeedup); v != "" {
		notes = append(notes, string(v))
	}
	if b.Exact {
		notes = append(notes, "exact")
	}
	if b.Increased {
		notes = append(notes, "increased")
	}
	if b.Decreased {
		notes = append(notes, "decreased")
	}
	return strings.Join(notes, ", ")
}

// reusedText says what of c's evaluation came from earlier jobs through the
// result cache, or "" when nothing did. An example: "its tests' outcome
// from job X; 8 of its 8 benchmark pairs from job Y".
func reusedText(c result.CandidateResult) string {
	var out []string
	if c.ReusedFrom != "" {
		out = append(out, fmt.Sprintf("its tests' outcome from job %s (same tree, base, test command and environment)", c.ReusedFrom))
	}
	if c.ReusedPairs > 0 {
		out = append(out, fmt.Sprintf("%d of its %d benchmark pairs from job %s (byte-identical test binaries)",
			c.ReusedPairs, c.Pairs, strings.Join(c.ReusedPairsFrom, ", ")))
	}
	return strings.Join(out, "; ")
}

// hacksText says what the hack check saw: "BenchmarkX: cached (…)".
func hacksText(hs []result.Hack) string {
	if len(hs) == 0 {
		return "the hack check flagged it"
	}
	parts := make([]string, len(hs))
	for i, h := range hs {
		parts[i] = fmt.Sprintf("%s: %s (%s)", h.Bench, h.Kind, h.Detail)
	}
	return strings.Join(parts, "; ")
}
