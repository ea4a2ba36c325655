package testjudge

import "testing"

func TestCannotRun(t *testing.T) {
	for _, tt := range []struct {
		name string
		out  Outcome
		want bool
	}{
		{"NotFound", Outcome{Exit: 127, Output: "sh: 1: no-such-tool: not found\n"}, true},
		{"NotExecutable", Outcome{Exit: 126, Output: "sh: 1: ./run.sh: Permission denied\n"}, true},
		{"RunnerMissing", Outcome{Exit: 1, Output: "/usr/bin/python3: No module named pytest\n"}, true},
		{"NodeScriptMissing", Outcome{Exit: 1, Output: "node:internal/modules/cjs/loader:1080\n  throw err;\n\nError: Cannot find module '/r/x.js'\n"}, true},
		{"SuiteFailsOnStdout", Outcome{Exit: 1, Stdout: 300, Output: "F.\nFAILED test_a.py::test_x\n1 failed, 1 passed\n"}, false},
		{"JestOnStderr", Outcome{Exit: 1, Output: "FAIL src/sum.test.js\n  ✕ adds (3 ms)\nTests:       1 failed, 3 passed, 4 total\n"}, false},
		{"UnittestOnStderr", Outcome{Exit: 1, Output: "F.\n======\nFAIL: test_x (t.T)\n------\nRan 2 tests in 0.001s\n\nFAILED (failures=1)\n"}, false},
		{"Passes", Outcome{Exit: 0}, false},
		{"TimedOut", Outcome{Exit: -1, TimedOut: true}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := CannotRun(&tt.out) != nil; got != tt.want {
				t.Errorf("CannotRun = %v, want %v", got, tt.want)
			}
		})
	}
}
