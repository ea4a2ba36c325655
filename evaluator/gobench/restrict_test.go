package gobench

import "testing"

// TestRestrict: the restricted filter selects what the expression selects
// among the names, sub-benchmark parts kept, and nothing else.
func TestRestrict(t *testing.T) {
	names := []string{"BenchmarkA", "BenchmarkB", "BenchmarkAB"}
	for _, tt := range []struct {
		name, expr string
		match      []string
		miss       []string
	}{
		{name: "All", match: []string{"BenchmarkA", "BenchmarkB/n=1", "BenchmarkAB"}, miss: []string{"BenchmarkC", "BenchmarkA2"}},
		{name: "Prefix", expr: "BenchmarkA", match: []string{"BenchmarkA", "BenchmarkAB"}, miss: []string{"BenchmarkB", "BenchmarkA2"}},
		{name: "Sub", expr: "B$/n=1$", match: []string{"BenchmarkB/n=1", "BenchmarkAB/n=1"}, miss: []string{"BenchmarkB/n=2", "BenchmarkA/n=1"}},
		{name: "Alternatives", expr: "A$/x|B$/y", match: []string{"BenchmarkA/x", "BenchmarkB/y"}, miss: []string{"BenchmarkA/y", "BenchmarkB/x"}},
		{name: "None", expr: "Zzz", miss: []string{"BenchmarkA", "Zzz"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			expr := Restrict(tt.expr, names)
			f, err := NewFilter(expr)
			if err != nil {
				t.Fatalf("Restrict(%q) = %q: %v", tt.expr, expr, err)
			}
			for _, n := range tt.match {
				if !f.Match(n) {
					t.Errorf("%q does not match %s", expr, n)
				}
			}
			for _, n := range tt.miss {
				if f.Match(n) {
					t.Errorf("%q matches %s", expr, n)
				}
			}
		})
	}
}
