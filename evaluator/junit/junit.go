// Package junit reads JUnit XML test reports and turns them into a
// gotest.Run. So a candidate's tests in any language are compared with
// base's one by one, as go test's are. Many runners write the format:
// pytest (--junitxml), node's test runner (--test-reporter=junit), vitest,
// jest (jest-junit), cargo-nextest, Maven Surefire and ctest
// (--output-junit).
//
// # What flows through it
//
// One or more report files go into [Parse], each giving its [Case]s: one
// per testcase element, at any depth of testsuites and testsuite elements.
// [Run] folds the cases of every file of one run into a *gotest.Run, keyed
// by [Case.Key], with each failing test's message and output as its excerpt.
//
// # Names
//
// A test's key is its group, a dot, and its path. The group is the
// testcase's classname (pytest's module, Surefire's class, nextest's binary)
// or, without one, its file attribute or its outermost suite's name
// (ctest's are all "ctest"). The path is the names of the suites it is
// nested in, below the outermost, joined with " > " before the test's own
// name. Node's reporter names every
// classname "test" and nests describe blocks as suites from the top, so
// there the outermost suite is part of the path too.
package junit

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/optimizer-dev/optimizer/evaluator/gotest"
)

// Status is a test's outcome, as gotest counts it.
type Status = gotest.Status

// Case is one testcase element of a report.
type Case struct {
	Group  string   // classname, file, or the outermost suite's name
	Suites []string // the names of the suites it is nested in, outermost first
	Name   string
	Status Status
	// Message is the failure's, error's or skip's message attribute.
	Message string
	// Output is the failure's text, then the test's system-out and
	// system-err, each capped.
	Output  string
	Seconds float64
}

// Key is the test's key in a gotest.Run: "group.path".
func (c Case) Key() string {
	path := c.path()
	if c.Group == "" || c.Group == path {
		return path
	}
	return c.Group + "." + path
}

func (c Case) path() string {
	var parts []string
	for i, s := range c.Suites {
		if s == "" || s == c.Group || (i == 0 && !genericGroup(c.Group)) {
			continue
		}
		parts = append(parts, s)
	}
	return strings.Join(append(parts, c.Name), " > ")
}

// ctestGroup is the group of ctest's tests: ctest writes a status
// attribute on each testcase, its name as classname, and the CDash build
// name, or "(empty)", as the suite's.
const ctestGroup = "ctest"

// genericGroup says whether a classname names nothing of the test: node's
// reporter gives every test the classname "test".
func genericGroup(g string) bool { return g == "" || g == "test" }

// ErrNotJUnit is returned for XML whose root is neither testsuites nor
// testsuite, and for text that is not XML.
var ErrNotJUnit = errors.New("not a JUnit XML report (the root element is neither testsuites nor testsuite)")

// maxText caps the bytes kept of one text element: a failure's stack, a
// test's system-out.
const maxText = 4 << 10

// element mirrors the parts of testsuites, testsuite and testcase that
// matter. The same struct reads all three, so that suites nest at any depth
// and a testcase may stand directly under testsuites (node's reporter).
type element struct {
	XMLName   xml.Name
	Name      string    `xml:"name,attr"`
	Classname string    `xml:"classname,attr"`
	File      string    `xml:"file,attr"`
	Time      string    `xml:"time,attr"`
	Status    string    `xml:"status,attr"` // ctest: run, fail, notrun, disabled
	Suites    []element `xml:"testsuite"`
	Cases     []element `xml:"testcase"`
	Failures  []outcome `xml:"failure"`
	Errors    []outcome `xml:"error"`
	Skipped   []outcome `xml:"skipped"`
	SystemOut []string  `xml:"system-out"`
	SystemErr []string  `xml:"system-err"`
}

// outcome is a failure, error or skipped element.
type outcome struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// Parse reads one report. A report with no testcase is no error: it gives
// no cases.
func Parse(r io.Reader) ([]Case, error) {
	var root element
	d := xml.NewDecoder(r)
	d.Strict = false // tools write unescaped ampersands in names and output
	if err := d.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, ErrNotJUnit
		}
		return nil, fmt.Errorf("read JUnit XML: %w", err)
	}
	var out []Case
	switch root.XMLName.Local {
	case "testsuites":
		collect(&out, root, nil)
	case "testsuite":
		collect(&out, root, []string{root.Name})
	default:
		return nil, ErrNotJUnit
	}
	return out, nil
}

// collect appends the cases in e, which is nested in suites.
func collect(out *[]Case, e element, suites []string) {
	for _, tc := range e.Cases {
		*out = append(*out, newCase(tc, suites))
	}
	for _, s := range e.Suites {
		collect(out, s, append(slices.Clip(suites), s.Name))
	}
}

func newCase(tc element, suites []string) Case {
	c := Case{Name: strings.TrimSpace(tc.Name), Suites: suites, Status: gotest.StatusPass}
	c.Group = strings.TrimSpace(tc.Classname)
	if c.Group == "" || c.Group == c.Name {
		c.Group = tc.File
	}
	if c.Group == "" && tc.Status != "" {
		c.Group = ctestGroup // its suite is named after the build, "(empty)" without one
	}
	if c.Group == "" && len(suites) > 0 {
		c.Group = suites[0]
	}
	c.Seconds, _ = strconv.ParseFloat(tc.Time, 64)
	var text strings.Builder
	bad := append(slices.Clip(tc.Failures), tc.Errors...)
	switch {
	case len(bad) > 0:
		c.Status = gotest.StatusFail
		c.Message = bad[0].Message
		for _, f := range bad {
			if m := strings.TrimSpace(f.Message); m != "" && !strings.Contains(f.Text, m) {
				text.WriteString(m + "\n")
			}
			text.WriteString(capText(strings.Trim(f.Text, "\n")) + "\n")
		}
	case len(tc.Skipped) > 0 || tc.Status == "notrun" || tc.Status == "disabled":
		c.Status = gotest.StatusSkip
		if len(tc.Skipped) > 0 {
			c.Message = tc.Skipped[0].Message
		}
	case tc.Status == "fail":
		c.Status = gotest.StatusFail // ctest marks a failure by its status alone
	}
	if c.Status == gotest.StatusFail {
		for _, s := range append(slices.Clip(tc.SystemOut), tc.SystemErr...) {
			if s = strings.Trim(s, "\n"); strings.TrimSpace(s) != "" {
				text.WriteString(capText(s) + "\n")
			}
		}
	}
	c.Output = text.String()
	return c
}

// capText keeps the head and the tail of s, at most maxText bytes.
func capText(s string) string {
	if len(s) <= maxText {
		return s
	}
	half := maxText / 2
	return s[:half] + fmt.Sprintf("\n[… %d bytes cut …]\n", len(s)-2*half) + s[len(s)-half:]
}

// Run folds the cases of one run, from any number of reports, into a
// gotest.Run. A test reported more than once (a rerun, or two reports)
// fails if any report fails it, else passes if any passes it. Each group
// becomes one of the Run's packages, so that a test missing from a group
// that ran is a regression (gotest.Compare).
func Run(cases []Case) *gotest.Run {
	r := &gotest.Run{Tests: map[string]gotest.Status{}, Packages: map[string]gotest.Status{},
		Output: map[string]string{}, Elapsed: map[string]float64{}}
	rank := map[gotest.Status]int{gotest.StatusSkip: 1, gotest.StatusPass: 2, gotest.StatusFail: 3}
	for _, c := range cases {
		key := c.Key()
		if rank[c.Status] > rank[r.Tests[key]] {
			r.Tests[key] = c.Status
		}
		if c.Status == gotest.StatusFail && c.Output != "" {
			if len(r.Output) < gotest.MaxFailureExcerpts {
				r.Output[key] = strings.TrimRight(r.Output[key]+c.Output, "\n")
			} else if _, kept := r.Output[key]; !kept {
				r.OutputDropped++
			}
		}
		if c.Status == gotest.StatusPass {
			r.Elapsed[key] += c.Seconds
		}
		if c.Group != "" && c.Group != key {
			if rank[c.Status] > rank[r.Packages[c.Group]] {
				r.Packages[c.Group] = c.Status
			}
		}
	}
	for key, st := range r.Tests {
		switch st {
		case gotest.StatusPass:
			r.Passed++
		case gotest.StatusFail:
			r.Failed++
			if _, ok := r.Output[key]; !ok && len(r.Output) < gotest.MaxFailureExcerpts {
				r.Output[key] = "(the report gives no message or output for this test)"
			}
		case gotest.StatusSkip:
			r.Skipped++
		}
	}
	return r
}
