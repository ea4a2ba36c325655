package optimize

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/profiler"
	"github.com/optimizer-dev/optimizer/report"

	"github.com/optimizer-dev/optimizer/evaluator"
)

// Report is what a run of the loop found. Its JSON form is stored with the
// run (optimize_runs.report).
type Report struct {
	Run        string            `json:"run"`
	Repo       string            `json:"repo"`
	Base       string            `json:"base"`
	Targets    []string          `json:"targets"`
	State      string            `json:"state"`
	Error      string            `json:"error,omitempty"`
	Stopped    string            `json:"stopped,omitempty"` // why the loop ended
	Winner     string            `json:"winner,omitempty"`
	Overfit    string            `json:"overfit,omitempty"` // the best, re-measured overfit: no winner
	Suspect    string            `json:"suspect,omitempty"` // the best, re-measured suspect: no winner
	Holdout    *HoldoutChoice    `json:"holdout,omitempty"`
	Lineage    []Step            `json:"lineage,omitempty"` // the winner's line, first ancestor first
	Remeasure  *Remeasure        `json:"remeasure,omitempty"`
	Rounds     []RoundSummary    `json:"rounds"`
	Generators []*GeneratorStats `json:"generators"`
	Candidates []Step            `json:"candidates"`
	Warnings   []string          `json:"warnings,omitempty"`
	Started    time.Time         `json:"started"`
	Seconds    float64           `json:"seconds"`
	// GeneratorSeconds adds up the generators' calls (which may overlap);
	// JudgeSeconds the jobs' wall time, rounds and re-measurement.
	GeneratorSeconds float64 `json:"generator_seconds"`
	JudgeSeconds     float64 `json:"judge_seconds"`
}

// Step is one candidate of a run, as a line of its lineage.
type Step struct {
	Candidate   string             `json:"candidate"`
	Generator   string             `json:"generator"`
	Round       int                `json:"round"`
	Mode        string             `json:"mode"`
	Parent      string             `json:"parent,omitempty"`
	Verdict     string             `json:"verdict"`
	Speedup     float64            `json:"speedup,omitempty"`
	CI          *[2]float64        `json:"ci,omitempty"`
	Job         string             `json:"job,omitempty"`
	DuplicateOf string             `json:"duplicate_of,omitempty"`
	Explanation string             `json:"explanation,omitempty"`
	Failure     *evaluator.Failure `json:"failure,omitempty"`
}

// RoundSummary is one round: how many candidates it had, its job, and the
// best of the run after it.
type RoundSummary struct {
	Round      int     `json:"round"`
	Candidates int     `json:"candidates"`
	Job        string  `json:"job,omitempty"`
	Best       string  `json:"best,omitempty"`
	Speedup    float64 `json:"speedup,omitempty"`
}

// Remeasure is the winner's second, longer measurement against base.
type Remeasure struct {
	Job       string                    `json:"job"`
	Result    evaluator.CandidateResult `json:"result"`
	Confirmed bool                      `json:"confirmed"` // the longer series also calls it faster
	Profile   *profiler.Summary         `json:"profile,omitempty"`
}

// GeneratorStats counts what one generator's candidates became: applied
// (the change applies), compiled (it builds), passed (its tests pass) and
// faster, each counted among those before it.
type GeneratorStats struct {
	Name        string  `json:"name"`
	Calls       int     `json:"calls"`
	FailedCalls int     `json:"failed_calls"` // exited non-zero, timed out, or printed nothing usable
	Candidates  int     `json:"candidates"`   // judged; duplicates aside
	Duplicates  int     `json:"duplicates"`
	Applied     int     `json:"applied"`
	Compiled    int     `json:"compiled"`
	Passed      int     `json:"passed"`
	Faster      int     `json:"faster"`
	Seconds     float64 `json:"seconds"`
}

// stats returns the counters of the generator named name, made on first use.
func (rep *Report) stats(name string) *GeneratorStats {
	for _, s := range rep.Generators {
		if s.Name == name {
			return s
		}
	}
	s := &GeneratorStats{Name: name}
	rep.Generators = append(rep.Generators, s)
	return s
}

// count adds one judged candidate's result.
func (s *GeneratorStats) count(res evaluator.CandidateResult) {
	kind := evaluator.FailureKind("")
	if res.Verdict == evaluator.VerdictFailed && res.Failure != nil {
		kind = res.Failure.Kind
	}
	if kind == evaluator.FailApply {
		return
	}
	s.Applied++
	if kind == evaluator.FailBuild {
		return
	}
	s.Compiled++
	if res.Verdict == evaluator.VerdictFailed {
		return
	}
	s.Passed++
	if faster(res.Verdict) {
		s.Faster++
	}
}

// WriteJSON writes the report as indented JSON, the form it is stored in.
func (rep *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// WriteText writes the report for a terminal.
func (rep *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "optimize run %s: %s in %s; %s\n", rep.Run, rep.State, time.Duration(rep.Seconds*float64(time.Second)).Round(time.Second), rep.Stopped)
	fmt.Fprintf(&b, "targets: %s\n", strings.Join(rep.Targets, ", "))
	switch {
	case rep.Overfit != "" || rep.Suspect != "":
		res := rep.Remeasure.Result
		fmt.Fprintf(&b, "winner: none: the best, %s, re-measured in a longer series (job %s): %s %s, %s: %s\n",
			rep.Overfit+rep.Suspect, rep.Remeasure.Job, times(res.Speedup), interval(res.CI), res.Verdict, rejection(res))
	case rep.Winner == "":
		fmt.Fprintln(&b, "winner: none: no candidate was significantly faster than base")
	case rep.Remeasure == nil:
		fmt.Fprintf(&b, "winner: %s (not re-measured)\n", rep.Winner)
	default:
		res := rep.Remeasure.Result
		word := "confirmed"
		if !rep.Remeasure.Confirmed {
			word = "NOT confirmed"
		}
		fmt.Fprintf(&b, "winner: %s; re-measured in a longer series (job %s): %s %s after %d pairs: %s\n",
			rep.Winner, rep.Remeasure.Job, times(res.Speedup), interval(res.CI), res.Pairs, word)
	}
	if h := rep.Holdout; h != nil {
		writeHoldout(&b, h)
	}
	if len(rep.Lineage) > 0 {
		fmt.Fprintln(&b, "\nlineage of the winner:")
		for _, s := range rep.Lineage {
			fmt.Fprintf(&b, "  round %d  %-8s %-22s %-10s %s %s\n", s.Round, s.Mode, s.Candidate, s.Verdict, times(s.Speedup), interval(s.CI))
		}
	}
	fmt.Fprintln(&b, "\nrounds:")
	for _, r := range rep.Rounds {
		best := "no faster candidate yet"
		if r.Best != "" {
			best = fmt.Sprintf("best so far %s %s", r.Best, times(r.Speedup))
		}
		fmt.Fprintf(&b, "  %d: %d candidates, job %s; %s\n", r.Round, r.Candidates, orDash(r.Job), best)
	}
	fmt.Fprintln(&b, "\ngenerators:  calls  failed  candidates  applied  compiled  passed  faster  dup  time")
	for _, s := range rep.Generators {
		fmt.Fprintf(&b, "  %-10s %5d  %6d  %10d  %7d  %8d  %6d  %6d  %3d  %.1fs\n", s.Name, s.Calls, s.FailedCalls,
			s.Candidates, s.Applied, s.Compiled, s.Passed, s.Faster, s.Duplicates, s.Seconds)
	}
	fmt.Fprintf(&b, "\ntime: %.1fs in generators, %.1fs in tests and benchmarks\n", rep.GeneratorSeconds, rep.JudgeSeconds)
	fmt.Fprintln(&b, "\ncandidates:")
	for _, s := range rep.Candidates {
		why := ""
		switch {
		case s.Failure != nil:
			why = fmt.Sprintf(" (%s: %s)", s.Failure.Kind, firstLine(s.Failure.Message))
		case s.DuplicateOf != "":
			why = " (same tree as " + s.DuplicateOf + ")"
		case s.Speedup > 0:
			why = " " + times(s.Speedup) + " " + interval(s.CI)
		}
		parent := ""
		if s.Parent != "" {
			parent = " from " + s.Parent
		}
		fmt.Fprintf(&b, "  %-22s round %d %s%s: %s%s\n", s.Candidate, s.Round, s.Mode, parent, s.Verdict, why)
	}
	for _, x := range rep.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", x)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func times(x float64) string { return report.SpeedupText(x) }

func interval(ci *[2]float64) string {
	if ci == nil {
		return ""
	}
	return report.IntervalText(*ci)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
