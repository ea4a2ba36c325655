package evaluator

import (
	"github.com/optimizer-dev/optimizer/evaluator/benchformat"
	"github.com/optimizer-dev/optimizer/evaluator/junit"
	"github.com/optimizer-dev/optimizer/evaluator/reportfiles"
)

// CheckReportPath checks a --test-report or --bench-report path or glob as
// a job would.
func CheckReportPath(p string) error {
	_, err := reportfiles.Pattern(p)
	return err
}

// testReports returns the job's JUnit report patterns: opts.TestReports,
// else those the test command names. go test -json needs none.
func testReports(opts Options, test string, goTest bool) ([]string, error) {
	if goTest {
		return nil, nil
	}
	return reportfiles.Patterns(opts.TestReports, junit.Detect(test), "--test-report")
}

// benchReports returns the job's bench report patterns: opts.BenchReports,
// else those the bench command names. None: results are read from stdout.
func benchReports(opts Options) ([]string, error) {
	return reportfiles.Patterns(opts.BenchReports, benchformat.DetectReport(opts.Bench), "--bench-report")
}
