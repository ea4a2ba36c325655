package junit

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/evaluator/gotest"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// TestParse_Reports reads one report of each tool; testdata/README.md says
// which were written by the tool itself. It checks the Run it gives against
// testdata/NAME.golden: every key, its status, and the first line of a
// failure's excerpt.
func TestParse_Reports(t *testing.T) {
	files, err := filepath.Glob("testdata/*.xml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no reports in testdata: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".xml")
		t.Run(name, func(t *testing.T) {
			r, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			cases, err := Parse(r)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			got := describe(Run(cases))
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to write it)", err)
			}
			if string(want) != got {
				t.Errorf("%s differs; got:\n%s\nwant:\n%s", golden, got, want)
			}
		})
	}
}

// describe prints a Run for a golden file.
func describe(r *gotest.Run) string {
	var b strings.Builder
	fmt.Fprintf(&b, "passed %d, failed %d, skipped %d\n", r.Passed, r.Failed, r.Skipped)
	keys := make([]string, 0, len(r.Tests))
	for k := range r.Tests {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s\t%s", r.Tests[k], k)
		if out := r.Output[k]; out != "" {
			first, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
			fmt.Fprintf(&b, "\t| %s", first)
		}
		b.WriteString("\n")
	}
	groups := make([]string, 0, len(r.Packages))
	for g := range r.Packages {
		groups = append(groups, g)
	}
	slices.Sort(groups)
	for _, g := range groups {
		fmt.Fprintf(&b, "group %s\t%s\n", r.Packages[g], g)
	}
	return b.String()
}

// TestCompare_Regressions compares two runs of the same suite, as the
// evaluator does. A test that passed and now fails, and one that vanished
// from a group that still ran, are regressions. A new failing test is not.
func TestCompare_Regressions(t *testing.T) {
	base := mustRun(t, `<testsuites><testsuite name="pytest">
<testcase classname="tests.test_calc" name="test_total"/>
<testcase classname="tests.test_calc" name="test_zero"/>
<testcase classname="tests.test_calc" name="test_gone"/>
<testcase classname="tests.test_other" name="test_x"><skipped message="later"/></testcase>
</testsuite></testsuites>`)
	cand := mustRun(t, `<testsuites><testsuite name="pytest">
<testcase classname="tests.test_calc" name="test_total"><failure message="assert 100 == 45">E assert 100 == 45</failure></testcase>
<testcase classname="tests.test_calc" name="test_zero"/>
<testcase classname="tests.test_calc" name="test_new"><failure message="boom"/></testcase>
<testcase classname="tests.test_other" name="test_x"><failure message="no"/></testcase>
</testsuite></testsuites>`)
	d := gotest.Compare(base, cand)
	want := []string{"tests.test_calc.test_total", "tests.test_calc.test_gone"}
	if !slices.Equal(d.Regressed, want) {
		t.Errorf("Regressed = %q, want %q", d.Regressed, want)
	}
	if wantNew := []string{"tests.test_calc.test_new", "tests.test_other.test_x"}; !slices.Equal(d.NewFailures, wantNew) {
		t.Errorf("NewFailures = %q, want %q", d.NewFailures, wantNew)
	}
	if got := cand.Output["tests.test_calc.test_total"]; !strings.Contains(got, "E assert 100 == 45") {
		t.Errorf("excerpt of test_total = %q, want the failure's text", got)
	}
}

// TestRun_Rerun: a test reported twice fails if either report fails it.
func TestRun_Rerun(t *testing.T) {
	r := mustRun(t, `<testsuites>
<testsuite name="a"><testcase classname="m" name="t"/></testsuite>
<testsuite name="b"><testcase classname="m" name="t"><error message="teardown failed"/></testcase></testsuite>
</testsuites>`)
	if r.Tests["m.t"] != gotest.StatusFail || r.Failed != 1 || r.Passed != 0 {
		t.Errorf("Tests = %v (passed %d, failed %d), want m.t failed once", r.Tests, r.Passed, r.Failed)
	}
	if !strings.Contains(r.Output["m.t"], "teardown failed") {
		t.Errorf("Output = %q, want the error's message", r.Output["m.t"])
	}
}

// TestParse_Bad: what is not a JUnit report says so.
func TestParse_Bad(t *testing.T) {
	for _, tt := range []struct{ name, in string }{
		{"Empty", ""},
		{"OtherRoot", `<html><body/></html>`},
		{"NotXML", `{"benchmarks": []}`},
		{"Truncated", `<testsuites><testsuite name="x"><testcase name="a"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if cases, err := Parse(strings.NewReader(tt.in)); err == nil {
				t.Errorf("Parse(%q) = %v, nil; want an error", tt.in, cases)
			}
		})
	}
}

// TestParse_Bounded: one huge failure text is cut to its head and tail.
func TestParse_Bounded(t *testing.T) {
	huge := strings.Repeat("x", 1<<20)
	r := mustRun(t, `<testsuite name="s"><testcase classname="c" name="t"><failure>HEAD`+huge+`TAIL</failure></testcase></testsuite>`)
	out := r.Output["c.t"]
	if len(out) > 2*maxText || !strings.HasPrefix(out, "HEAD") || !strings.HasSuffix(out, "TAIL") {
		t.Errorf("excerpt is %d bytes (head %q, tail %q), want at most %d with both ends", len(out), out[:8], out[len(out)-8:], 2*maxText)
	}
}

func mustRun(t *testing.T, xml string) *gotest.Run {
	t.Helper()
	cases, err := Parse(strings.NewReader(xml))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return Run(cases)
}

func FuzzParse(f *testing.F) {
	f.Add(`<testsuites><testsuite name="a"><testcase classname="c" name="t"><failure message="m">x</failure></testcase></testsuite></testsuites>`)
	f.Add(`<testsuite name="s"><testsuite name="n"><testcase name="t"/></testsuite></testsuite>`)
	f.Fuzz(func(t *testing.T, in string) {
		cases, err := Parse(strings.NewReader(in))
		if err != nil {
			return
		}
		r := Run(cases)
		if r.Passed+r.Failed+r.Skipped != len(r.Tests) {
			t.Errorf("counts %d+%d+%d do not add up to %d tests", r.Passed, r.Failed, r.Skipped, len(r.Tests))
		}
	})
}

func TestDetect(t *testing.T) {
	for _, tt := range []struct {
		name, cmd string
		want      []string
	}{
		{"Pytest", "pytest -q --junitxml=out/report.xml tests", []string{"out/report.xml"}},
		{"PytestSpace", "python3 -m pytest --junitxml report.xml", []string{"report.xml"}},
		{"Node", "node --test --test-reporter=spec --test-reporter=junit --test-reporter-destination=stdout --test-reporter-destination=junit.xml", []string{"junit.xml"}},
		{"Vitest", "npx vitest run --reporter=junit --outputFile=reports/junit.xml", []string{"reports/junit.xml"}},
		{"JestFile", "JEST_JUNIT_OUTPUT_FILE=r.xml npx jest --reporters=jest-junit", []string{"r.xml"}},
		{"JestDefault", "npx jest --ci --reporters=default --reporters=jest-junit", []string{"junit.xml"}},
		{"Ctest", "ctest --test-dir build --output-junit ctest.xml", []string{"build/ctest.xml"}},
		{"Nextest", "cargo nextest run --profile ci", []string{"target/nextest/ci/junit.xml"}},
		{"Maven", "mvn -q test", []string{"target/surefire-reports/TEST-*.xml", "*/target/surefire-reports/TEST-*.xml"}},
		{"Plain", "pytest -q", nil},
		{"NodeSpecOnly", "node --test --test-reporter=spec --test-reporter-destination=out.txt", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Detect(tt.cmd); !slices.Equal(got, tt.want) {
				t.Errorf("Detect(%q) = %q, want %q", tt.cmd, got, tt.want)
			}
		})
	}
}
