package gotest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestParser_RetainedOutput: a suite of 2,000 failing tests, each with a
// hundred lines of output, among chatty passing ones. The Run's kept output
// is bounded by MaxFailureExcerpts excerpts, not by the number of failures.
// The first failures keep theirs, and the rest are counted.
func TestParser_RetainedOutput(t *testing.T) {
	const pkgs, perPkg = 20, 100
	p := NewParser()
	line := strings.Repeat("x", 100)
	write := func(ev map[string]string) {
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		p.Write(append(b, '\n'))
	}
	streamed := 0
	for i := range pkgs {
		pkg := fmt.Sprintf("example.com/p%02d", i)
		write(map[string]string{"Action": "start", "Package": pkg})
		for k := range perPkg {
			for _, name := range []string{fmt.Sprintf("TestFail%03d", k), fmt.Sprintf("TestPass%03d", k)} {
				write(map[string]string{"Action": "run", "Package": pkg, "Test": name})
				for n := range 100 {
					out := fmt.Sprintf("    %s line %d %s\n", name, n, line)
					streamed += len(out)
					write(map[string]string{"Action": "output", "Package": pkg, "Test": name, "Output": out})
				}
				action := "pass"
				if strings.HasPrefix(name, "TestFail") {
					action = "fail"
				}
				write(map[string]string{"Action": action, "Package": pkg, "Test": name})
			}
		}
		write(map[string]string{"Action": "fail", "Package": pkg})
	}
	run := p.Result()

	if want := pkgs * perPkg; run.Failed != want || run.Passed != want {
		t.Fatalf("Failed, Passed = %d, %d; want %d each", run.Failed, run.Passed, want)
	}
	retained := len(run.Text)
	for _, s := range run.Output {
		retained += len(s)
	}
	// Each excerpt is at most MaxExcerpt bytes plus its cut marker.
	limit := MaxFailureExcerpts * (MaxExcerpt + 64)
	if retained > limit {
		t.Errorf("the Run keeps %d bytes of output (of %d streamed), want at most %d", retained, streamed, limit)
	}
	if len(run.Output) != MaxFailureExcerpts {
		t.Errorf("%d failing tests keep output, want %d", len(run.Output), MaxFailureExcerpts)
	}
	if want := pkgs*perPkg - MaxFailureExcerpts; run.OutputDropped != want {
		t.Errorf("OutputDropped = %d, want %d", run.OutputDropped, want)
	}
	first := run.Output["example.com/p00.TestFail000"]
	if !strings.Contains(first, "TestFail000 line 0 ") || !strings.Contains(first, "TestFail000 line 99 ") {
		t.Errorf("the first failure's excerpt lacks its head or tail:\n%s", first)
	}
}
