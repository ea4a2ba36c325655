// Package demo is what optimizer demo says and sets up around the job it
// runs. That is its settings, the directory with the fixture repository and
// the candidates (testdata.WriteDemo), and the text before and after the
// report. The job itself is the command's: optimizer run's, or optimize's
// with --optimize.
package demo

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/evaluator/measure"
	"github.com/optimizer-dev/optimizer/report"
	"github.com/optimizer-dev/optimizer/testdata"
)

// The demo's settings: two slots, and a timeout short enough for the
// hanging candidate to fail quickly. The benchmark budget keeps the whole
// demo under a minute on two cores.
const (
	Parallel = 2
	Timeout  = 15 * time.Second
	Budget   = 20 * time.Second
	MaxPairs = 12
)

// Dir is a demo's directory, as Write made it.
type Dir struct {
	testdata.DemoDir
	Path    string        // the directory: the one given, or a new temporary one
	Kept    bool          // it stays after the demo: given, or kept on request
	Timeout time.Duration // the test timeout the job runs with; 0 is Timeout
}

// Write writes the demo into dir (testdata.WriteDemo), or into a new
// temporary directory when dir is "", which Remove deletes unless keep.
// With candidates, the demo candidate set is written too. A dir that holds
// a demo already fails with testdata.ErrExists.
func Write(ctx context.Context, dir string, keep, candidates bool) (Dir, error) {
	d := Dir{Path: dir, Kept: keep || dir != ""}
	if dir == "" {
		tmp, err := os.MkdirTemp("", "optimizer-demo-")
		if err != nil {
			return Dir{}, fmt.Errorf("make demo dir: %w", err)
		}
		d.Path = tmp
	}
	var err error
	if d.DemoDir, err = testdata.WriteDemo(ctx, d.Path, candidates); err != nil {
		d.Remove()
		return Dir{}, err
	}
	return d, nil
}

// Remove deletes the directory unless it is kept.
func (d Dir) Remove() {
	if !d.Kept && d.Path != "" {
		os.RemoveAll(d.Path)
	}
}

// WriteIntro says what the demo is about to do: the repository, the
// candidates with the verdict each is there to show, and the job's steps.
func (d Dir) WriteIntro(w io.Writer) {
	fmt.Fprintf(w, "optimizer demo: a Go module whose sumsq.SumSquares is slow (math.Pow, a []string, fmt and\n")
	fmt.Fprintf(w, "strconv round trips), committed in %s, and six candidate changes in %s:\n\n", d.Repo, d.Candidates)
	rows := [][]string{{"  CANDIDATE", "EXPECTED", "WHAT IT DOES"}}
	for _, c := range testdata.DemoCandidates {
		rows = append(rows, []string{"  " + c.Name, c.Expected(), c.About})
	}
	report.Columns(w, "", rows)
	fmt.Fprintf(w, "\nEach candidate's tests run in its own git worktree, two at a time, against the baseline's;\n")
	fmt.Fprintf(w, "hang is killed at the %s timeout. The correct ones are then benchmarked one at a time,\n", d.timeout())
	fmt.Fprintf(w, "interleaved with base, and the winner is profiled. Progress goes to stderr. The demo checks\n")
	fmt.Fprintf(w, "its verdicts against EXPECTED at the end, and fails saying why if one differs.\n\n")
}

func (d Dir) timeout() time.Duration {
	if d.Timeout > 0 {
		return d.Timeout
	}
	return Timeout
}

// A MismatchError says which verdicts of the demo's job differ from its
// EXPECTED column, and why.
type MismatchError struct {
	Lines []string // one per candidate, then what the machine was like
}

func (e *MismatchError) Error() string {
	return "the demo's verdicts differ from its EXPECTED column:\n  " + strings.Join(e.Lines, "\n  ")
}

// Check compares the verdicts of rep, the demo's job, with the EXPECTED
// column. It returns a *MismatchError naming each one that differs, with
// the report's reason. A test timeout where none was expected is blamed on
// the machine's load, which it names.
func (d Dir) Check(rep *evaluator.Report) error {
	byName := map[string]evaluator.CandidateResult{}
	for _, c := range rep.Candidates {
		byName[c.Name] = c
	}
	var lines []string
	timedOut := false
	for _, dc := range testdata.DemoCandidates {
		c, ok := byName[dc.Name]
		if !ok {
			lines = append(lines, fmt.Sprintf("%s: expected %s, but the job has no such candidate", dc.Name, dc.Expected()))
			continue
		}
		got := string(c.Verdict)
		if c.Failure != nil {
			got += " (" + string(c.Failure.Kind) + ")"
		}
		if got == dc.Expected() {
			continue
		}
		line := fmt.Sprintf("%s: expected %s, got %s: %s", dc.Name, dc.Expected(), got, report.Reason(rep, c))
		if c.Failure != nil && c.Failure.Kind == evaluator.FailTimeout {
			timedOut = true
			line += fmt.Sprintf(" (its tests ran past the demo's %s timeout)", d.timeout())
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		return nil
	}
	if timedOut {
		lines = append(lines, fmt.Sprintf("why: tests that finish in well under a second here ran past %s: the machine is loaded%s; run the demo again when it is quieter", d.timeout(), loadText()))
	}
	return &MismatchError{Lines: lines}
}

// loadText is " (load average 12.4 on 2 CPUs)", or "" where it is unknown.
func loadText() string {
	if l := measure.LoadAverage(); l != "" {
		return " (" + l + ")"
	}
	return ""
}

// WriteOptimizeIntro says what demo --optimize is about to do.
func (d Dir) WriteOptimizeIntro(w io.Writer) {
	fmt.Fprintf(w, "optimizer demo --optimize: a Go module whose sumsq.SumSquares is slow, committed in %s.\n", d.Repo)
	fmt.Fprintf(w, "The example generator proposes a rewrite that skips the first element (a test fails), repairs\n")
	fmt.Fprintf(w, "it when given the failure, then refines it; the winner is measured again at the end.\n\n")
}

// WriteOutro says where the demo repository is kept, or that it is deleted
// now and how to keep it.
func (d Dir) WriteOutro(w io.Writer) {
	if d.Kept {
		fmt.Fprintf(w, "\nThe demo repository is kept in %s. Look around with:\n  optimizer history --repo %s\n  optimizer show --repo %s\n", d.Repo, d.Repo, d.Repo)
		return
	}
	fmt.Fprintf(w, "\nThe demo directory %s is deleted now. To keep it and look around with\nhistory, show and apply, run: optimizer demo --keep (or --dir DIR)\n", d.Path)
}
