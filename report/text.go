package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/optimizer-dev/optimizer/result"
)

// outputLines is how many lines of a failure's output the reports show.
const outputLines = 8

// Text writes rep for a terminal: a header, one row per candidate in input
// order, and why each got its verdict. Then come a benchmark table per
// measured candidate, the profile, the noise floor and warnings.
func Text(w io.Writer, rep *result.Report) error {
	ew := &errWriter{w: w}
	writeTextHeader(ew, rep)
	writeTextTable(ew, rep)
	fmt.Fprintln(ew)
	for _, c := range rep.Candidates {
		fmt.Fprintf(ew, "%s: %s\n", c.Name, Reason(rep, c))
		if c.TestEdits.Flagged() {
			fmt.Fprintf(ew, "    edits the judge: %s\n", c.TestEdits.Summary())
		}
		if i := c.Interference; i.Significant() {
			fmt.Fprintf(ew, "    measured on a busy machine: %s\n", i.Summary())
		}
		if r := reusedText(c); r != "" {
			fmt.Fprintf(ew, "    reused: %s\n", r)
		}
		if c.Verdict != result.VerdictFailed {
			continue
		}
		for _, l := range messageRest(c.Failure.Message, outputLines) {
			fmt.Fprintf(ew, "    %s\n", l)
		}
		tests, out := failureDetails(c.Failure, outputLines)
		if tests != "" {
			fmt.Fprintf(ew, "    tests: %s\n", tests)
		}
		for _, l := range out {
			fmt.Fprintf(ew, "    | %s\n", l)
		}
	}
	for _, c := range rep.Candidates {
		if len(c.Benchmarks) > 0 {
			fmt.Fprintf(ew, "\n%s vs base:\n", c.Name)
			writeTextBenchmarks(ew, c.Benchmarks, rep.MinSpeedup)
		}
	}
	if rep.Profile != nil {
		fmt.Fprintln(ew)
		if err := rep.Profile.WriteText(ew); err != nil {
			return err
		}
		writeProfileFiles(ew, rep.Profile)
	}
	if rep.ProfileNote != "" {
		fmt.Fprintf(ew, "\nnot profiled: %s\n", rep.ProfileNote)
	}
	if n := rep.Noise; n != nil {
		fmt.Fprintf(ew, "\nnoise floor: ±%s%% (base against itself, %d pairs)\n", percent(n.Floor), n.Pairs)
	}
	if len(rep.Warnings) > 0 {
		fmt.Fprintln(ew, "\nwarnings:")
		for _, x := range rep.Warnings {
			fmt.Fprintf(ew, "  - %s\n", x)
		}
	}
	return ew.err
}

func writeTextHeader(w io.Writer, rep *result.Report) {
	state := rep.State
	if state == "" {
		state = "finished"
	}
	fmt.Fprintf(w, "job %s: %s in %.1fs%s\n", rep.Job, state, rep.Seconds, phasesText(rep.Phases))
	fmt.Fprintf(w, "repo %s at base %s, %s, min speedup %s%%\n", rep.Repo, ShortHash(rep.Base), Plural(rep.Parallel, "slot"), percent(rep.MinSpeedup))
	if line := SandboxLine(rep.Sandbox); line != "" {
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "winner: %s\n\n", WinnerLine(rep))
}

// NoWinner says why rep has no winner: not chosen yet, every candidate
// failed, nothing was measured, or none is faster beyond the threshold.
func NoWinner(rep *result.Report) string {
	if rep.State == "running" || rep.State == "queued" {
		return "not chosen yet"
	}
	failed, passed, measured := 0, 0, 0
	for _, c := range rep.Candidates {
		switch {
		case c.Verdict == result.VerdictPending || c.Live != nil:
			return "none: the job stopped before a winner was chosen"
		case c.Verdict == result.VerdictFailed:
			failed++
		case c.Verdict == result.VerdictPassed:
			passed++
		case c.Pairs > 0:
			measured++
		}
	}
	switch {
	case failed > 0 && failed == len(rep.Candidates):
		return fmt.Sprintf("none: %s failed", allOf(failed, "candidate"))
	case measured == 0 && passed > 0:
		return "none: no benchmark ran, so no candidate could be found faster"
	}
	return fmt.Sprintf("none: no candidate is significantly more than %s%% faster", percent(rep.MinSpeedup))
}

// allOf is "the candidate" for 1, "all 3 candidates" for 3.
func allOf(n int, what string) string {
	if n == 1 {
		return "the " + what
	}
	return fmt.Sprintf("all %d %ss", n, what)
}

// phasesText is " (resolve 0.3s, behavior 14s, benchmark 8.1s)": the phases
// that ran, or "" for a report without phase times.
func phasesText(p *result.Phases) string {
	if p == nil {
		return ""
	}
	var parts []string
	for _, ph := range []struct {
		name string
		secs float64
	}{
		{result.PhaseResolve, p.Resolve},
		{result.PhaseBehavior, p.Behavior},
		{result.PhaseContributed, p.Contributed},
		{result.PhaseBenchmark, p.Benchmark},
		{result.PhaseProfile, p.Profile},
	} {
		if ph.secs > 0 {
			parts = append(parts, ph.name+" "+ShortDuration(time.Duration(ph.secs*float64(time.Second))))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// WinnerLine is "fast (11.8× faster [11.1×, 12.6×])", or why there is no
// winner. When the winner was found faster on only some of its benchmarks,
// it names them ("; faster on 2 of 8 benchmarks: …").
func WinnerLine(rep *result.Report) string {
	if rep.Winner == nil {
		return NoWinner(rep)
	}
	for _, c := range rep.Candidates {
		if c.Name == *rep.Winner && c.Qualifier == result.QualifierFasterOnSome {
			return fmt.Sprintf("%s (%s; %s overall %s)", c.Name, fasterOnSome(c), speedupText(c.Speedup), ciFor(rep, c))
		}
		if c.Name == *rep.Winner {
			return fmt.Sprintf("%s (%s faster %s%s)", c.Name, speedupText(c.Speedup), ciFor(rep, c), changedOn(c))
		}
	}
	return *rep.Winner
}

func writeTextTable(w io.Writer, rep *result.Report) {
	rows := [][]string{{"CANDIDATE", "VERDICT", "SPEEDUP", "INTERVAL", "PAIRS", "TIME"}}
	for _, c := range rep.Candidates {
		verdict := string(c.Verdict)
		if c.Failure != nil {
			verdict += " (" + string(c.Failure.Kind) + ")"
		}
		if c.Qualifier != "" {
			verdict += " (" + c.Qualifier + ")"
		}
		rows = append(rows, []string{c.Name, verdict, speedupText(c.Speedup), ciFor(rep, c), pairsText(c.Pairs), timeText(c)})
	}
	Columns(w, "", rows)
}

// timeText is a candidate's time, and beside it any wait for the machine
// that its benchmark had, which the time leaves out: "4.1s (+1m05s wait)".
func timeText(c result.CandidateResult) string {
	if c.WaitSeconds < 1 {
		return secondsText(c.Seconds)
	}
	return fmt.Sprintf("%s (+%s wait)", secondsText(c.Seconds), ShortDuration(time.Duration(c.WaitSeconds*float64(time.Second))))
}

// writeTextBenchmarks writes a benchstat-like table of one candidate's
// benchmarks.
func writeTextBenchmarks(w io.Writer, bs []result.BenchResult, minSpeedup float64) {
	rows := [][]string{{"BENCHMARK", "UNIT", "BASE", "CANDIDATE", "SPEEDUP", "INTERVAL", "P", "PAIRS", ""}}
	for _, b := range bs {
		speedup, ci, p := speedupText(b.Speedup), ciText(b.CI, 1+minSpeedup), pText(b.P)
		if b.Exact {
			speedup, ci, p = "-", "-", "-"
		}
		base, cand := b.Columns()
		rows = append(rows, []string{b.Name, b.Unit, valueText(b.Unit, base), valueText(b.Unit, cand),
			speedup, ci, p, pairsText(b.Pairs), benchNote(b, minSpeedup)})
	}
	Columns(w, "  ", rows)
	if note := tableNote(bs); note != "" {
		fmt.Fprintf(w, "  %s\n", note)
	}
}

// Columns writes rows as aligned columns, each line prefixed and
// without trailing blanks.
func Columns(w io.Writer, prefix string, rows [][]string) {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
	for _, line := range strings.Split(strings.TrimRight(buf.String(), "\n"), "\n") {
		fmt.Fprintln(w, prefix+strings.TrimRight(line, " "))
	}
}

func ShortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// errWriter keeps the first write error, so that report writers can print
// freely and check once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return len(p), nil
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

// SandboxLine is the header's account of the sandbox: "sandbox: bwrap", or
// "sandbox: none (off), ..." saying candidates ran with the user's
// privileges. It is "" for a report that does not say (one stored before).
func SandboxLine(sb *result.SandboxReport) string {
	switch {
	case sb == nil || (sb.Kind == "" && !sb.Active):
		return ""
	case sb.Active && sb.Net:
		return "sandbox: bwrap, with the network"
	case sb.Active:
		return "sandbox: bwrap"
	}
	why := sb.Note
	if why == "off" {
		why = "--sandbox off"
	}
	line := "sandbox: none (" + why + "): candidates ran with your privileges"
	switch sb.Containment {
	case "":
	case "group":
		line += "; a process that left its run's process group may have outlived the run"
	default:
		line += "; every process of a run was killed at its end (" + sb.Containment + ")"
	}
	return line
}
