package evaluator

import (
	"slices"
	"strings"
	"testing"
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
		{"Capped", strings.Repeat("not ok 1 - x\n", 10), 4, []string{"not ok 1 - x", "not ok 1 - x", "not ok 1 - x", "not ok 1 - x"}, 6},
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
