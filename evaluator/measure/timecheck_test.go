package measure

import (
	"fmt"
	"strings"
	"testing"
)

func TestTimeCheck_Verdict(t *testing.T) {
	for _, tt := range []struct {
		name       string
		base, cand func(i int) (float64, string)
		warn       bool
	}{
		{"SameTimeNumbersDiffer", func(i int) (float64, string) { return 0.30 + float64(i%2)*0.001, "result: 234.5 us" },
			func(i int) (float64, string) { return 0.30, "result: 120.1 us" }, true},
		{"TimeMoves", func(i int) (float64, string) { return 0.60, "result: 234.5 us" },
			func(i int) (float64, string) { return 0.30, "result: 120.1 us" }, false},
		{"NoisyTimeNumbersDiffer100x", func(i int) (float64, string) { return 0.55, "result: 2345 us" },
			func(i int) (float64, string) { return 0.75, "result: 23.1 us" }, true},
		{"SameTimeSameNumbers", func(i int) (float64, string) { return 0.30, "ran 1000 items" },
			func(i int) (float64, string) { return 0.30, "ran 1000 items" }, false},
		{"NoNumbers", func(i int) (float64, string) { return 0.30, "ok" },
			func(i int) (float64, string) { return 0.30, "ok" }, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b timeCheck
			var got string
			for i := range 6 {
				if got != "" {
					t.Fatalf("warned before 6 pairs: %s", got)
				}
				s, out := tt.base(i)
				b.add(Base, s, []byte(out))
				s, out = tt.cand(i)
				b.add(Cand, s, []byte(out))
				got = b.verdict(6)
			}
			if (got != "") != tt.warn {
				t.Errorf("verdict = %q, want a warning: %v", got, tt.warn)
			}
			if tt.warn && !strings.Contains(got, "Go benchmark line") {
				t.Errorf("the warning does not say what to do: %s", got)
			}
			if again := b.verdict(6); again != "" {
				t.Errorf("warned twice: %s", again)
			}
		})
	}
}

func TestSelfTimed(t *testing.T) {
	for _, tt := range []struct {
		out  string
		want bool
	}{
		{"1000 loops, best of 5: 234 usec per loop\n", true},
		{"200000 loops, best of 5: 1.05 usec per loop", true},
		{"  Time (mean ± σ):     12.3 ms ±   0.4 ms", true},
		{"Mean +- std dev: 1.23 us +- 0.02 us", true},
		{"done in 12 ms", false},
		{fmt.Sprintf("BenchmarkX %d 234 ns/op", 1000), false},
	} {
		if _, got := selfTimed([]byte(tt.out)); got != tt.want {
			t.Errorf("selfTimed(%q) = %v, want %v", tt.out, got, tt.want)
		}
	}
}
