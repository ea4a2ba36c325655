package evaluator

import (
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/evaluator/measure"
)

// TestLayoutCheck: a faster candidate whose pairs are faster in one code
// layout only is layout-sensitive, and says each layout's speedup. One
// faster in both layouts, or measured in one layout, stays faster.
func TestLayoutCheck(t *testing.T) {
	series := func(speedup [measure.Layouts]float64) *measure.Series {
		s := measure.NewSeries(nil)
		for r := range 12 {
			layout, _ := measure.Setting(r)
			jitter := 1 + float64(r)/1000
			s.Add([]measure.Metric{{Bench: "BenchmarkX", Unit: "sec/op", Value: 2 * jitter}},
				[]measure.Metric{{Bench: "BenchmarkX", Unit: "sec/op", Value: 2 / speedup[layout]}})
		}
		return s
	}
	both := []*measure.GoBench{{BaseAlt: "b.layout.test", CandAlt: "c.layout.test"}}
	one := []*measure.GoBench{{BaseAlt: "b.layout.test"}}
	for _, tt := range []struct {
		name    string
		speedup [measure.Layouts]float64
		benches []*measure.GoBench
		want    Verdict
	}{
		{"one layout", [2]float64{1.8, 1.0}, both, VerdictLayoutSensitive},
		{"the other layout", [2]float64{1.0, 1.8}, both, VerdictLayoutSensitive},
		{"both layouts", [2]float64{2.0, 1.9}, both, VerdictFaster},
		{"one layout built", [2]float64{1.8, 1.0}, one, VerdictFaster},
	} {
		t.Run(tt.name, func(t *testing.T) {
			j := &job{opts: Options{MinSpeedup: 0.05}}
			c := &cand{res: CandidateResult{Verdict: VerdictFaster}, measured: &measured{goBench: tt.benches}}
			j.layoutCheck(c, series(tt.speedup))
			if c.res.Verdict != tt.want {
				t.Fatalf("%s, want %s (note %q)", c.res.Verdict, tt.want, c.res.Note)
			}
			if tt.want == VerdictLayoutSensitive && !strings.Contains(c.res.Note, "code layout") {
				t.Errorf("note %q does not say the layouts' speedups", c.res.Note)
			}
		})
	}
}
