package report

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/gotest"
	"github.com/optimizer-dev/optimizer/result"
)

// ProgressLine says in a few words what became of a candidate, with its time:
// "failed (test: TestX) 1.2s". Its interval's bounds have the digits that
// show which side of 1× and of 1+minSpeedup they fall, as in the report.
func ProgressLine(r *result.CandidateResult, minSpeedup float64) string {
	if r == nil {
		return "done"
	}
	var b strings.Builder
	b.WriteString(string(r.Verdict))
	switch r.Verdict {
	case result.VerdictFailed:
		if f := r.Failure; f != nil {
			b.WriteString(" (" + string(f.Kind))
			if len(f.Tests) > 0 {
				b.WriteString(": " + ListSome(gotest.Names(f.Tests), 3))
			}
			b.WriteString(")")
		}
	case result.VerdictDuplicate:
		b.WriteString(" of " + r.DuplicateOf)
	case result.VerdictPassed:
		if r.TestsTotal > 0 {
			fmt.Fprintf(&b, " (tests %d/%d)", r.TestsPassed, r.TestsTotal)
		}
	default:
		if r.Speedup > 0 {
			b.WriteString(" " + speedupText(r.Speedup))
			if r.CI != nil {
				b.WriteString(" " + ciText(*r.CI, 1+minSpeedup))
			}
		}
	}
	if r.Seconds > 0 {
		b.WriteString(" " + ShortDuration(time.Duration(r.Seconds*float64(time.Second))))
	}
	if r.WaitSeconds >= 1 {
		b.WriteString(" (after waiting " + ShortDuration(time.Duration(r.WaitSeconds*float64(time.Second))) + " for the machine)")
	}
	return b.String()
}

// ListSome joins up to n items and says how many more there are.
func ListSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}

// ShortDuration is 850ms, 1.2s, 48s or 3m05s.
func ShortDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Round(time.Second).Seconds()))
	}
	d = d.Round(time.Second)
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}

// WatchLine says what became of a candidate in a few words:
// "tests 48/48 pass · BenchmarkSumSquares 3.10× faster [2.90×, 3.30×]" or
// "FAIL TestX (sumsq_test.go:21)". Interval bounds are printed as
// ProgressLine prints them, beside 1+minSpeedup.
func WatchLine(c *result.CandidateResult, minSpeedup float64) string {
	switch c.Verdict {
	case result.VerdictFailed:
		return failureLine(c.Failure)
	case result.VerdictDuplicate:
		if c.DuplicateOf == "base" {
			return "same tree as HEAD: nothing to evaluate"
		}
		return "same tree as " + c.DuplicateOf + ": not run again"
	case result.VerdictPending:
		return "not finished"
	}
	parts := []string{testsText(c)}
	if b := benchText(c, minSpeedup); b != "" {
		parts = append(parts, b)
	}
	if c.Note != "" {
		parts = append(parts, c.Note)
	}
	if c.Seconds > 0 {
		parts = append(parts, ShortDuration(time.Duration(c.Seconds*float64(time.Second))))
	}
	return strings.Join(parts, " · ")
}

func testsText(c *result.CandidateResult) string {
	if c.TestsTotal > 0 {
		return fmt.Sprintf("tests %d/%d pass", c.TestsPassed, c.TestsTotal)
	}
	return "tests pass"
}

// benchText is the measured part of a line: the benchmark's name when one
// was measured, the speedup, its interval and what it means; and exact
// metrics that increased.
func benchText(c *result.CandidateResult, minSpeedup float64) string {
	if c.Speedup <= 0 {
		return ""
	}
	var names, increased, decreased []string
	for _, b := range c.Benchmarks {
		switch {
		case b.Aside() && b.Increased:
			increased = append(increased, b.Unit)
		case b.Aside() && b.Decreased:
			decreased = append(decreased, b.Unit)
		case !b.Aside() && !slices.Contains(names, b.Name):
			names = append(names, b.Name)
		}
	}
	var what string
	switch len(names) {
	case 0:
	case 1:
		what = names[0] + " "
	default:
		what = fmt.Sprintf("%d benchmarks ", len(names))
	}
	ci := ""
	if c.CI != nil {
		ci = " " + ciText(*c.CI, 1+minSpeedup)
	}
	var s string
	switch c.Verdict {
	case result.VerdictWinner, result.VerdictFaster:
		s = fmt.Sprintf("%s%s faster%s", what, speedupText(c.Speedup), ci)
	case result.VerdictSlower:
		s = fmt.Sprintf("%s%s slower%s", what, speedupText(c.Speedup), ci)
	case result.VerdictMixed:
		s = fmt.Sprintf("%s%s%s mixed: some benchmark is slower", what, speedupText(c.Speedup), ci)
	case result.VerdictOverfit, result.VerdictSuspect, result.VerdictLayoutSensitive:
		s = fmt.Sprintf("%s%s%s %s", what, speedupText(c.Speedup), ci, c.Verdict.Info().Words)
	default:
		s = fmt.Sprintf("%s%s%s not faster", what, speedupText(c.Speedup), ci)
	}
	for _, ch := range []struct {
		units []string
		word  string
	}{{increased, "increased"}, {decreased, "decreased"}} {
		if len(ch.units) > 0 {
			slices.Sort(ch.units)
			s += " · " + strings.Join(slices.Compact(ch.units), ", ") + " " + ch.word
		}
	}
	return s
}

// failureLine is "FAIL TestX (sumsq_test.go:21)", "FAIL build: … (x.go:3)",
// "FAIL timeout: …".
func failureLine(f *result.Failure) string {
	if f == nil {
		return "FAIL"
	}
	var s string
	switch {
	case f.Kind == result.FailTest && len(f.Tests) > 0:
		s = "FAIL " + ListSome(gotest.Names(f.Tests), 3)
	case f.Kind == result.FailTest:
		s = "FAIL " + firstLine(f.Message)
	case f.Kind == result.FailError:
		s = "ERROR " + firstLine(f.Message)
	default:
		s = fmt.Sprintf("FAIL %s: %s", f.Kind, firstLine(f.Message))
	}
	if loc := location(f.Output); loc != "" {
		s += " (" + loc + ")"
	}
	return s
}

// Where an output excerpt points: a Go file and line first, else any
// file.ext:line.
var (
	goLocation  = regexp.MustCompile(`[\w.\-/]*\w\.go:\d+`)
	anyLocation = regexp.MustCompile(`[\w.\-/]*\w\.[A-Za-z]\w*:\d+`)
)

// location finds the first file:line in a failure's output, or "".
func location(out string) string {
	if loc := goLocation.FindString(out); loc != "" {
		return loc
	}
	return anyLocation.FindString(out)
}
