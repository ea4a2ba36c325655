package evaluator

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/optimizer-dev/optimizer/evaluator/gotest"
	"github.com/optimizer-dev/optimizer/evaluator/junit"
)

// A test command other than go test -json is judged test by test when it
// writes JUnit XML (Options.TestReports, or a path its flags name:
// junit.Detect). The reports are read from the slot after each run, and
// removed before it, so that a stale or staged file is never read.

// ErrReportPath is the error of a --test-report or --bench-report path that
// cannot name a file in the slot.
var ErrReportPath = errors.New("bad report path")

// testReports returns the job's report patterns: opts.TestReports, else
// those the test command names. go test -json needs none.
func testReports(opts Options, test string, goTest bool) ([]string, error) {
	if goTest {
		return nil, nil
	}
	pats := opts.TestReports
	if len(pats) == 0 {
		pats = junit.Detect(test)
	}
	var out []string
	for _, p := range pats {
		clean, err := reportPattern(p)
		if err != nil {
			if len(opts.TestReports) == 0 {
				continue // a detected path outside the tree: judged by exit code, as before
			}
			return nil, fmt.Errorf("--test-report: %w", err)
		}
		out = append(out, clean)
	}
	return out, nil
}

// CheckReportPath checks a --test-report or --bench-report path or glob as
// a job would.
func CheckReportPath(p string) error {
	_, err := reportPattern(p)
	return err
}

// reportPattern checks one report path or glob: relative to the repository
// root and inside it, as each slot holds its own copy of the tree.
func reportPattern(p string) (string, error) {
	clean := path.Clean(strings.ReplaceAll(p, `\`, "/"))
	switch {
	case p == "" || path.IsAbs(p):
		return "", fmt.Errorf("%w %q: want a path relative to the repository root (each candidate runs in its own copy of the tree)", ErrReportPath, p)
	case clean == ".." || strings.HasPrefix(clean, "../"):
		return "", fmt.Errorf("%w %q: the path leaves the repository", ErrReportPath, p)
	}
	if _, err := path.Match(clean, ""); err != nil {
		return "", fmt.Errorf("%w %q: %v", ErrReportPath, p, err)
	}
	return clean, nil
}

// clearReports removes the files in dir that the report patterns match.
func clearReports(dir string, pats []string) error {
	if len(pats) == 0 {
		return nil
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, p := range pats {
		matches, _ := fs.Glob(root.FS(), p)
		for _, m := range matches {
			if err := root.Remove(m); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("remove the old test report %s: %w", m, err)
			}
		}
	}
	return nil
}

// maxReport bounds the bytes read of one report file.
const maxReport = 64 << 20

// readReports reads the reports in dir into one Run. It returns nil and why
// when none was written or one cannot be read.
func readReports(dir string, pats []string) (*gotest.Run, string) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err.Error()
	}
	defer root.Close()
	var files []string
	for _, p := range pats {
		matches, _ := fs.Glob(root.FS(), p)
		files = append(files, matches...)
	}
	slices.Sort(files)
	files = slices.Compact(files)
	if len(files) == 0 {
		return nil, fmt.Sprintf("the test command wrote no test report (%s)", strings.Join(pats, ", "))
	}
	var cases []junit.Case
	for _, f := range files {
		b, err := readCapped(root, f, maxReport)
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

// readCapped reads a regular file of root, refusing one over limit bytes.
func readCapped(root *os.Root, name string, limit int64) ([]byte, error) {
	f, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	switch {
	case err != nil:
		return nil, err
	case !st.Mode().IsRegular():
		return nil, errors.New("not a regular file")
	case st.Size() > limit:
		return nil, fmt.Errorf("%d bytes, over the limit of %d", st.Size(), limit)
	}
	var b bytes.Buffer
	_, err = b.ReadFrom(f)
	return b.Bytes(), err
}
