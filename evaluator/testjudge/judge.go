package testjudge

import (
	"fmt"
	"slices"
	"strings"

	"github.com/optimizer-dev/optimizer/evaluator/gotest"
	"github.com/optimizer-dev/optimizer/excerpt"
	"github.com/optimizer-dev/optimizer/result"
)

// Judge compares a candidate's passing run with the baseline's. It returns
// nil when the candidate keeps every test that passed at base.
func Judge(base, out *Outcome) *result.Failure {
	if out.Tests != nil && base.Tests != nil {
		d := gotest.Compare(base.Tests, out.Tests)
		if len(d.BuildFailed) > 0 {
			return &result.Failure{Kind: result.FailBuild,
				Message: "does not compile: " + strings.Join(d.BuildFailed, ", "),
				Output:  Excerpts(out.Tests, d.BuildFailed, out.Output)}
		}
		if crashed := crashers(d, out.Tests); len(crashed) > 0 {
			return &result.Failure{Kind: result.FailTest, Tests: append(crashed, d.Regressed...),
				Message: "new tests fail: " + strings.Join(First(gotest.Names(crashed), 5), ", ") +
					"; tests that pass at base did not run after them: " + strings.Join(First(gotest.Names(d.Regressed), 5), ", "),
				Output: Excerpts(out.Tests, crashed, out.Output)}
		}
		if len(d.Regressed) > 0 {
			return &result.Failure{Kind: result.FailTest, Tests: d.Regressed,
				Message: "tests that pass at base fail: " + strings.Join(First(gotest.Names(d.Regressed), 5), ", "),
				Output:  Excerpts(out.Tests, d.Regressed, out.Output)}
		}
	}
	if f := judgeReport(base, out); f != nil {
		return f
	}
	if out.Exit != 0 && base.Exit == 0 {
		return &result.Failure{Kind: result.FailTest,
			Message: fmt.Sprintf("the test command exits %d where base exits 0", out.Exit),
			Output:  excerpt.Tail(out.Text(), 40)}
	}
	return nil
}

// judgeReport judges what JUnit reports add to the per-test comparison. A
// candidate that writes no report where base wrote one fails. One that
// exits non-zero where base exits 0 names its new failing tests.
func judgeReport(base, out *Outcome) *result.Failure {
	switch {
	case base.JUnit && !out.JUnit:
		return &result.Failure{Kind: result.FailTest,
			Message: fmt.Sprintf("%s where base wrote one (exit %d)", out.NoReport, out.Exit),
			Output:  excerpt.Tail(out.Text(), 40)}
	case !out.JUnit || !base.JUnit || out.Exit == 0 || base.Exit != 0:
		return nil
	}
	if d := gotest.Compare(base.Tests, out.Tests); len(d.NewFailures) > 0 {
		return &result.Failure{Kind: result.FailTest, Tests: d.NewFailures,
			Message: fmt.Sprintf("the test command exits %d where base exits 0; new tests fail: %s", out.Exit,
				strings.Join(First(d.NewFailures, 5), ", ")),
			Output: Excerpts(out.Tests, d.NewFailures, out.Output)}
	}
	return nil
}

// crashers returns the failing tests that are new in the candidate when
// every regression is a test that did not run at all. A new test that panics
// or exits ends its test binary, and the old tests after it never run. The
// failure is the new test's, not theirs.
func crashers(d gotest.Diff, cand *gotest.Run) []string {
	if len(d.Regressed) == 0 || len(d.NewFailures) == 0 {
		return nil
	}
	pkgs := map[string]bool{}
	for _, key := range d.Regressed {
		if cand.Tests[key] != "" {
			return nil // a test that ran and failed: it speaks for itself
		}
		pkg, _ := cand.Split(key)
		pkgs[pkg] = true
	}
	var out []string
	for _, key := range d.NewFailures {
		if pkg, test := cand.Split(key); test != "" && pkgs[pkg] {
			out = append(out, key)
		}
	}
	return out
}

// Failing lists the tests of a go test run that did not pass, sorted; nil
// for a run that was not go test -json.
func Failing(run *gotest.Run) []string {
	if run == nil {
		return nil
	}
	var out []string
	for key, st := range run.Tests {
		if st == gotest.StatusFail {
			out = append(out, key)
		}
	}
	slices.Sort(out)
	return out
}
