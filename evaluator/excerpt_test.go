package evaluator

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/evaluator/gotest"
)

func TestStripEscapes(t *testing.T) {
	in := "\x1b[94mdef\x1b[39;49;00m \x1b[92mtest\x1b[39;49;00m():\r\n\x1b]0;title\x07ok\x1b[K\n"
	if got, want := stripEscapes(in), "def test():\nok\n"; got != want {
		t.Errorf("stripEscapes = %q, want %q", got, want)
	}
}

func TestKeyLines(t *testing.T) {
	filler := strings.Repeat("context line\n", 20)
	for _, tt := range []struct {
		name   string
		output string
		n      int
		want   []string
		more   int
	}{
		{"Short", "a\nb\n", 8, []string{"a", "b"}, 0},
		{"Pytest", "F.F\n" + filler + "\x1b[1m\x1b[31mE       assert 100 == 45\x1b[0m\n" + filler +
			"FAILED test_calc.py::test_total - assert 100 == 45\nFAILED test_calc.py::test_more - assert 1 == 2\n",
			8, []string{"E       assert 100 == 45", "FAILED test_calc.py::test_total - assert 100 == 45", "FAILED test_calc.py::test_more - assert 1 == 2"}, 41},
		{"NodeTAP", "TAP version 13\n# Subtest: sum\n" + filler + "not ok 1 - sum\n  ---\n  error: |-\n    Expected values to be strictly equal:\n\n    3 !== 6\n\n  code: 'ERR_ASSERTION'\n" + filler + "# fail 1\n",
			8, []string{"not ok 1 - sum", "  error: |-", "    Expected values to be strictly equal:", "    3 !== 6"}, 47},
		{"Go", "=== RUN   TestA\n" + filler + "--- FAIL: TestA (0.00s)\n" + filler + "FAIL\texample.com/m\t0.01s\n",
			8, []string{"--- FAIL: TestA (0.00s)", "FAIL\texample.com/m\t0.01s"}, 41},
		{"NoneNamedTail", filler + "last\n", 3, []string{"context line", "context line", "last"}, 18},
		{"Capped", "not ok 1 - a\nnot ok 2 - b\nnot ok 3 - c\nnot ok 4 - d\nnot ok 5 - e\nnot ok 6 - f\n", 4,
			[]string{"not ok 1 - a", "not ok 2 - b", "not ok 3 - c", "not ok 4 - d"}, 2},
		// The demo's broken candidate: each t.Errorf line before its
		// --- FAIL line, then the subtests' own copies; the messages are
		// what a person needs, and no line is shown twice.
		{"GoMessages", "--- example.com/m.TestSum\n    sum_test.go:20: Sum([3]) = 0, want 9\n--- FAIL: TestSum/one (0.00s)\n" +
			"    sum_test.go:20: Sum([-4]) = 0, want 16\n--- FAIL: TestSum/negative (0.00s)\n--- FAIL: TestSum (0.00s)\n" +
			"--- example.com/m.TestSum/negative\n    sum_test.go:20: Sum([-4]) = 0, want 16\n--- FAIL: TestSum/negative (0.00s)\n" +
			"--- example.com/m.TestSum/one\n    sum_test.go:20: Sum([3]) = 0, want 9\n--- FAIL: TestSum/one (0.00s)\n", 8,
			[]string{"    sum_test.go:20: Sum([3]) = 0, want 9", "--- FAIL: TestSum/one (0.00s)", "    sum_test.go:20: Sum([-4]) = 0, want 16",
				"--- FAIL: TestSum/negative (0.00s)", "--- FAIL: TestSum (0.00s)"}, 7},
		{"GoBuild", "# example.com/m [example.com/m.test]\n" + filler + "m/sum.go:16:3: invalid operation: total += n (mismatched types int and int64)\n" + filler,
			8, []string{"m/sum.go:16:3: invalid operation: total += n (mismatched types int and int64)"}, 41},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, more := KeyLines(tt.output, tt.n)
			if !slices.Equal(got, tt.want) || more != tt.more {
				t.Errorf("KeyLines = %q, %d more; want %q, %d more", got, more, tt.want, tt.more)
			}
		})
	}
}

func TestCannotRun(t *testing.T) {
	for _, tt := range []struct {
		name string
		out  testOutcome
		want bool
	}{
		{"NotFound", testOutcome{Exit: 127, Output: "sh: 1: no-such-tool: not found\n"}, true},
		{"NotExecutable", testOutcome{Exit: 126, Output: "sh: 1: ./run.sh: Permission denied\n"}, true},
		{"RunnerMissing", testOutcome{Exit: 1, Output: "/usr/bin/python3: No module named pytest\n"}, true},
		{"NodeScriptMissing", testOutcome{Exit: 1, Output: "node:internal/modules/cjs/loader:1080\n  throw err;\n\nError: Cannot find module '/r/x.js'\n"}, true},
		{"SuiteFailsOnStdout", testOutcome{Exit: 1, Stdout: 300, Output: "F.\nFAILED test_a.py::test_x\n1 failed, 1 passed\n"}, false},
		{"JestOnStderr", testOutcome{Exit: 1, Output: "FAIL src/sum.test.js\n  ✕ adds (3 ms)\nTests:       1 failed, 3 passed, 4 total\n"}, false},
		{"UnittestOnStderr", testOutcome{Exit: 1, Output: "F.\n======\nFAIL: test_x (t.T)\n------\nRan 2 tests in 0.001s\n\nFAILED (failures=1)\n"}, false},
		{"Passes", testOutcome{Exit: 0}, false},
		{"TimedOut", testOutcome{Exit: -1, TimedOut: true}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := cannotRun(&tt.out) != nil; got != tt.want {
				t.Errorf("cannotRun = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestExcerpts: a parent's output holds its failing subtests' (the
// parser collects them), so a subtest it holds is not shown again; one
// whose output it does not hold is. A hang names the subtest that did not
// finish.
func TestExcerpts(t *testing.T) {
	ev := func(action, test, output string) string {
		return fmt.Sprintf(`{"Action":%q,"Package":"m","Test":%q,"Output":%q}`+"\n", action, test, output)
	}
	stream := ev("run", "TestSum", "") + ev("run", "TestSum/one", "") +
		ev("output", "TestSum/one", "    sum_test.go:20: Sum([3]) = 0, want 9\n") +
		ev("output", "TestSum/one", "--- FAIL: TestSum/one (0.00s)\n") + ev("fail", "TestSum/one", "") +
		ev("run", "TestSum/two", "") +
		ev("output", "TestSum/two", "    sum_test.go:20: Sum([-4]) = 0, want 16\n") +
		ev("output", "TestSum/two", "--- FAIL: TestSum/two (0.00s)\n") + ev("fail", "TestSum/two", "") +
		ev("output", "TestSum", "--- FAIL: TestSum (0.00s)\n") + ev("fail", "TestSum", "") +
		ev("run", "TestHang", "") + ev("run", "TestHang/loop", "") + ev("output", "TestHang/loop", "    hang_test.go:9: looping\n")
	p := gotest.NewParser()
	p.Write([]byte(stream))
	run := p.Result()
	names := []string{"m.TestHang", "m.TestHang/loop", "m.TestSum", "m.TestSum/one", "m.TestSum/two"}
	got := excerpts(run, names, stream)
	for _, want := range []string{"sum_test.go:20: Sum([3]) = 0, want 9", "sum_test.go:20: Sum([-4]) = 0, want 16",
		"--- FAIL: TestSum/one", "--- FAIL: TestSum/two", "hang_test.go:9: looping", "(TestHang/loop did not finish)", "(TestHang did not finish)"} {
		if n := strings.Count(got, want); n != 1 {
			t.Errorf("%q shown %d times, want once:\n%s", want, n, got)
		}
	}
	if strings.Contains(got, "--- m.TestSum/one") || strings.Contains(got, "--- m.TestHang/loop") {
		t.Errorf("a subtest its parent's output holds is shown again:\n%s", got)
	}
	// The parent's output cut (it was past the excerpts kept): its
	// subtests are shown on their own.
	delete(run.Output, "m.TestSum")
	if got := excerpts(run, names, stream); !strings.Contains(got, "--- m.TestSum/one\n") || !strings.Contains(got, "--- m.TestSum/two\n") {
		t.Errorf("without the parent's output, the subtests are not shown:\n%s", got)
	}
}
