package excerpt

import (
	"slices"
	"strings"
	"testing"
)

func TestStripEscapes(t *testing.T) {
	in := "\x1b[94mdef\x1b[39;49;00m \x1b[92mtest\x1b[39;49;00m():\r\n\x1b]0;title\x07ok\x1b[K\n"
	if got, want := Strip(in), "def test():\nok\n"; got != want {
		t.Errorf("Strip = %q, want %q", got, want)
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
