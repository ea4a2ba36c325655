package testjudge

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/evaluator/gotest"
	"github.com/optimizer-dev/optimizer/result"
)

// goRun is the outcome of a go test -json run of package m whose tests end
// as given ("pass" or "fail"), in order, then the package with pkg.
func goRun(exit int, pkg string, tests ...[2]string) *Outcome {
	var b strings.Builder
	ev := func(action, test, output string) {
		fmt.Fprintf(&b, `{"Action":%q,"Package":"m","Test":%q,"Output":%q}`+"\n", action, test, output)
	}
	for _, t := range tests {
		ev("run", t[0], "")
		if t[1] == "fail" {
			ev("output", t[0], "    x_test.go:9: "+t[0]+" broke\n")
		}
		ev(t[1], t[0], "")
	}
	fmt.Fprintf(&b, `{"Action":%q,"Package":"m"}`+"\n", pkg)
	p := gotest.NewParser()
	p.Write([]byte(b.String()))
	return &Outcome{Exit: exit, Tests: p.Result(), Output: b.String()}
}

func TestJudge(t *testing.T) {
	base := goRun(0, "pass", [2]string{"TestA", "pass"}, [2]string{"TestB", "pass"})
	for _, tt := range []struct {
		name  string
		out   *Outcome
		tests []string // nil: passes; empty: fails by exit code
		msg   string
	}{
		{"Same", goRun(0, "pass", [2]string{"TestA", "pass"}, [2]string{"TestB", "pass"}), nil, ""},
		{"Regressed", goRun(1, "fail", [2]string{"TestA", "fail"}, [2]string{"TestB", "pass"}),
			[]string{"m.TestA"}, "tests that pass at base fail: m.TestA"},
		// A new test that ends the binary: TestB never ran, and the new
		// test is named first.
		{"Crasher", goRun(1, "fail", [2]string{"TestA", "pass"}, [2]string{"TestNew", "fail"}),
			[]string{"m.TestNew", "m.TestB"}, "new tests fail: m.TestNew; tests that pass at base did not run after them: m.TestB"},
		// Only a new test fails: no test of base's regressed, and the exit
		// code judges.
		{"NewTestFails", goRun(1, "fail", [2]string{"TestA", "pass"}, [2]string{"TestB", "pass"}, [2]string{"TestNew", "fail"}),
			[]string{}, "the test command exits 1 where base exits 0"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := Judge(base, tt.out)
			if tt.tests == nil {
				if f != nil {
					t.Fatalf("failed: %+v", f)
				}
				return
			}
			if f == nil || f.Kind != result.FailTest || !slices.Equal(f.Tests, tt.tests) || !strings.HasPrefix(f.Message, tt.msg) {
				t.Fatalf("failure %+v; want tests %q, message %q", f, tt.tests, tt.msg)
			}
			if len(tt.tests) > 0 && !strings.Contains(f.Output, strings.TrimPrefix(tt.tests[0], "m.")+" broke") {
				t.Errorf("output %q does not show %s's own", f.Output, tt.tests[0])
			}
		})
	}
}

// TestJudge_ExitAndReports: without per-test results the exit code judges;
// a JUnit job that writes no report where base wrote one fails.
func TestJudge_ExitAndReports(t *testing.T) {
	if f := Judge(&Outcome{Exit: 0}, &Outcome{Exit: 2, Output: "boom\n"}); f == nil || f.Message != "the test command exits 2 where base exits 0" || f.Output != "boom" {
		t.Errorf("exit 2 where base exits 0: %+v", f)
	}
	if f := Judge(&Outcome{Exit: 1}, &Outcome{Exit: 1}); f != nil {
		t.Errorf("a run that fails as base fails: %+v", f)
	}
	base := goRun(0, "pass", [2]string{"TestA", "pass"})
	base.JUnit = true
	missing := &Outcome{Exit: 1, NoReport: "the test command wrote no test report (r.xml)"}
	if f := Judge(base, missing); f == nil || f.Message != "the test command wrote no test report (r.xml) where base wrote one (exit 1)" {
		t.Errorf("no report: %+v", f)
	}
}

func TestIsGoTestJSON(t *testing.T) {
	for cmd, want := range map[string]bool{"go test -json ./...": true, "go test ./...": false, "gotest -json": false, "pytest --json": false} {
		if got := IsGoTestJSON(cmd); got != want {
			t.Errorf("IsGoTestJSON(%q) = %v, want %v", cmd, got, want)
		}
	}
}
