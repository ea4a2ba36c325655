package testjudge

import (
	"fmt"
	"strings"

	"github.com/optimizer-dev/optimizer/evaluator/gotest"
	"github.com/optimizer-dev/optimizer/result"
)

// Own judges the author's run of the tests it adds. When not nil, baseOwn
// is base's own run of the whole suite (a JUnit job runs every test). A
// test that fails there says nothing of the author.
func Own(run, baseOwn *gotest.Run) *result.Failure {
	bad := Failing(run)
	bad = append(bad, run.BuildFailed...)
	if baseOwn != nil {
		var keep []string
		for _, k := range bad {
			if baseOwn.Tests[k] != gotest.StatusFail {
				keep = append(keep, k)
			}
		}
		bad = keep
	}
	if len(bad) == 0 {
		return nil
	}
	return &result.Failure{Kind: result.FailTest, Tests: bad,
		Message: "fails the tests it adds: " + strings.Join(First(gotest.Names(bad), 5), ", "),
		Output:  Excerpts(run, bad, "")}
}

// Contributed judges a candidate's run of the tests author adds against
// base's run of them. In a JUnit job (files: author's test files, sorted)
// the run is of every test, and the failure names the files laid over it.
func Contributed(author string, files []string, junit bool, atBase, run *gotest.Run) *result.Failure {
	d := gotest.Compare(atBase, run)
	if len(d.BuildFailed) > 0 {
		return &result.Failure{Kind: result.FailTest, Tests: d.BuildFailed,
			Message: fmt.Sprintf("does not build with the tests that candidate %s adds, which pass at base: %s",
				author, strings.Join(First(d.BuildFailed, 5), ", ")),
			Output: Excerpts(run, d.BuildFailed, "")}
	}
	if len(d.Regressed) == 0 {
		return nil
	}
	if junit {
		return &result.Failure{Kind: result.FailTest, Tests: d.Regressed,
			Message: fmt.Sprintf("fails %s with the test files that candidate %s adds or changes (%s), which pass at base",
				strings.Join(First(gotest.Names(d.Regressed), 5), ", "), author, strings.Join(First(files, 3), ", ")),
			Output: Excerpts(run, d.Regressed, "")}
	}
	return &result.Failure{Kind: result.FailTest, Tests: d.Regressed,
		Message: fmt.Sprintf("fails %s, added by candidate %s, which passes at base",
			strings.Join(First(gotest.Names(d.Regressed), 5), ", "), author),
		Output: Excerpts(run, d.Regressed, "")}
}
