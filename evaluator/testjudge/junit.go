package testjudge

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/optimizer-dev/optimizer/evaluator/gotest"
	"github.com/optimizer-dev/optimizer/evaluator/junit"
	"github.com/optimizer-dev/optimizer/evaluator/reportfiles"
)

// A test command other than go test -json is judged test by test when it
// writes JUnit XML (Options.TestReports, or a path its flags name:
// junit.Detect). The reports are read from the slot after each run, and
// removed before it (reportfiles.Clear).

// ReadJUnit reads the reports in dir into one Run. It returns nil and why
// when none was written or one cannot be read.
func ReadJUnit(dir string, pats []string) (*gotest.Run, string) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err.Error()
	}
	defer root.Close()
	files := reportfiles.Match(root, pats)
	if len(files) == 0 {
		return nil, fmt.Sprintf("the test command wrote no test report (%s)", strings.Join(pats, ", "))
	}
	var cases []junit.Case
	for _, f := range files {
		b, err := reportfiles.ReadCapped(root, f, reportfiles.MaxBytes)
		if err != nil {
			return nil, fmt.Sprintf("read the test report %s: %v", f, err)
		}
		cs, err := junit.Parse(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Sprintf("the test report %s: %v", f, err)
		}
		cases = append(cases, cs...)
	}
	return junit.Run(cases), ""
}
