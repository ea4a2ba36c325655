package testjudge

import (
	"fmt"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/evaluator/gotest"
)

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
	got := Excerpts(run, names, stream)
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
	if got := Excerpts(run, names, stream); !strings.Contains(got, "--- m.TestSum/one\n") || !strings.Contains(got, "--- m.TestSum/two\n") {
		t.Errorf("without the parent's output, the subtests are not shown:\n%s", got)
	}
}
