package gotest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// benchStream is a synthetic go test -json stream: pkgs packages of tests
// tests each, every test with a subtest and a few output lines, one test in
// ten failing. It is the shape of a mid-sized module's run.
func benchStream(pkgs, tests int) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	ev := func(action, pkg, test, output string) {
		enc.Encode(struct {
			Time                  time.Time
			Action                string
			Package, Test, Output string  `json:",omitempty"`
			Elapsed               float64 `json:",omitempty"`
		}{Time: t0, Action: action, Package: pkg, Test: test, Output: output})
	}
	for p := range pkgs {
		pkg := fmt.Sprintf("example.com/m/p%03d", p)
		ev("start", pkg, "", "")
		for i := range tests {
			name := fmt.Sprintf("TestCase%03d", i)
			sub := name + "/sub_case"
			ev("run", pkg, name, "")
			ev("output", pkg, name, "=== RUN   "+name+"\n")
			ev("run", pkg, sub, "")
			ev("output", pkg, sub, "=== RUN   "+sub+"\n")
			ev("output", pkg, sub, fmt.Sprintf("    x_test.go:%d: checking case %d of %s\n", 10+i, i, pkg))
			result := "pass"
			if i%10 == 9 {
				result = "fail"
				ev("output", pkg, sub, fmt.Sprintf("    x_test.go:%d: got %d, want %d\n", 20+i, i, i+1))
			}
			ev("output", pkg, sub, fmt.Sprintf("    --- %s: %s (0.00s)\n", map[string]string{"pass": "PASS", "fail": "FAIL"}[result], sub))
			ev(result, pkg, sub, "")
			ev("output", pkg, name, fmt.Sprintf("--- %s: %s (0.00s)\n", map[string]string{"pass": "PASS", "fail": "FAIL"}[result], name))
			ev(result, pkg, name, "")
		}
		ev("output", pkg, "", "FAIL\n")
		ev("output", pkg, "", fmt.Sprintf("FAIL\t%s\t0.012s\n", pkg))
		ev("fail", pkg, "", "")
	}
	return buf.Bytes()
}

// BenchmarkParser: parsing a whole stream, written as go test's pipe
// delivers it (4 KB at a time), and then reading the result.
func BenchmarkParser(b *testing.B) {
	for _, size := range []struct{ pkgs, tests int }{{1, 10}, {20, 50}, {100, 200}} {
		if testing.Short() && size.pkgs > 20 {
			continue
		}
		stream := benchStream(size.pkgs, size.tests)
		b.Run(fmt.Sprintf("pkgs=%d/tests=%d", size.pkgs, size.tests), func(b *testing.B) {
			b.SetBytes(int64(len(stream)))
			b.ReportAllocs()
			for b.Loop() {
				p := NewParser()
				for rest := stream; len(rest) > 0; {
					n := min(len(rest), 4096)
					p.Write(rest[:n])
					rest = rest[n:]
				}
				run := p.Result()
				if want := size.pkgs * size.tests * 2; len(run.Tests) != want {
					b.Fatalf("%d tests parsed, want %d", len(run.Tests), want)
				}
			}
		})
	}
}
