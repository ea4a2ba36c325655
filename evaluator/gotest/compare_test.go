package gotest

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// TestCompare_GoTest compares real runs of one module before and after a
// candidate. The candidate breaks a test and a subtest, breaks a build,
// panics in TestMain and replaces a passing test with a failing one.
func TestCompare_GoTest(t *testing.T) {
	base, err := parse(bytes.NewReader(goTestJSON(t, "before", before, false)))
	if err != nil {
		t.Fatal(err)
	}
	if base.Failed != 0 || base.Passed != 9 {
		t.Fatalf("base: %d passed, %d failed, want 9 and 0:\n%s", base.Passed, base.Failed, dump(base))
	}
	cand, err := parse(bytes.NewReader(goTestJSON(t, "after", after, false)))
	if err != nil {
		t.Fatal(err)
	}
	const m = "example.com/m/"
	want := Diff{
		Regressed: []string{m + "a.TestA1", m + "a.TestSub", m + "a.TestSub/y", m + "c", // failing
			m + "c.TestC", m + "d.TestD"}, // missing from a package that ran
		BuildFailed: []string{m + "b"},
		Vanished:    []string{m + "b.TestB"},
		NewFailures: []string{m + "d.TestD2"},
	}
	got := Compare(base, cand)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Compare =\n%+v\nwant\n%+v\nbase:\n%s\ncandidate:\n%s", got, want, dump(base), dump(cand))
	}
	if d := Compare(base, base); !reflect.DeepEqual(d, Diff{}) {
		t.Errorf("Compare(base, base) = %+v, want no difference", d)
	}
	if !strings.Contains(cand.Output[m+"c"], "main broke") || !strings.Contains(cand.Output[m+"b"], "b.go:3") {
		t.Errorf("package outputs lack their cause:\n%s", dump(cand))
	}
}

func TestCompare(t *testing.T) {
	run := func(stream ...string) *Run {
		r, err := parse(strings.NewReader(strings.Join(stream, "\n")))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	ev := func(action, pkg, test string) string {
		if test == "" {
			return `{"Action":"` + action + `","Package":"` + pkg + `"}`
		}
		return `{"Action":"` + action + `","Package":"` + pkg + `","Test":"` + test + `"}`
	}
	passA := run(ev("run", "p", "TestA"), ev("pass", "p", "TestA"), ev("run", "p", "TestB"), ev("pass", "p", "TestB"), ev("pass", "p", ""))
	for _, tt := range []struct {
		name       string
		base, cand *Run
		want       Diff
	}{
		{"Same", passA, passA, Diff{}},
		{"NilRuns", nil, nil, Diff{}},
		{"NilCandidate", passA, nil, Diff{Vanished: []string{"p.TestA", "p.TestB"}}},
		{"PackageNotRun", passA, run(ev("pass", "other", "")), Diff{Vanished: []string{"p.TestA", "p.TestB"}}},
		{"Skipped", passA, run(ev("pass", "p", "TestA"), ev("skip", "p", "TestB"), ev("pass", "p", "")), Diff{}},
		{"Deleted", passA, run(ev("pass", "p", "TestA"), ev("pass", "p", "")), Diff{Regressed: []string{"p.TestB"}}},
		{"FailedBoth", run(ev("fail", "p", "TestA"), ev("fail", "p", "")), run(ev("fail", "p", "TestA"), ev("fail", "p", "")), Diff{}},
		{"FixedByCandidate", run(ev("fail", "p", "TestA"), ev("fail", "p", "")), passA, Diff{}},
		{"SkippedAtBaseFailsNow", run(ev("skip", "p", "TestA"), ev("pass", "p", "")), run(ev("fail", "p", "TestA"), ev("fail", "p", "")),
			Diff{NewFailures: []string{"p.TestA"}}},
		{"BuildBrokenAtBaseToo", run("FAIL\tp [build failed]"), run("FAIL\tp [build failed]"), Diff{}},
		{"BuildBroken", passA, run("FAIL\tp [build failed]"), Diff{BuildFailed: []string{"p"}, Vanished: []string{"p.TestA", "p.TestB"}}},
		{"PackageFailure", passA, run(ev("pass", "p", "TestA"), ev("pass", "p", "TestB"), ev("fail", "p", "")), Diff{Regressed: []string{"p"}}},
		{"PackageFailureNoTestsAtBase", run(ev("skip", "p", "")), run(ev("fail", "p", "")), Diff{NewFailures: []string{"p"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := Compare(tt.base, tt.cand)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
