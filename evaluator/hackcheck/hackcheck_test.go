package hackcheck

import (
	"testing"

	"github.com/optimizer-dev/optimizer/result"
)

// TestCheck: a result cached across iterations and a body the compiler
// removes are flagged, also when one-off costs double a first iteration.
// Honest speedups are not flagged. Nor are one too small to look into, and
// benchmarks whose first iterations are mostly noisy one-off costs.
func TestCheck(t *testing.T) {
	const us = 1e-6
	const floor = 1.5e-9
	for _, tt := range []struct {
		name string
		b    Bench
		want string // the kind, or "" for none
	}{
		{name: "Cached", want: result.HackCached, b: Bench{BaseOp: 80 * us, CandOp: 0.005 * us,
			BaseFirst: []float64{95 * us, 100 * us, 98 * us, 120 * us, 97 * us},
			CandFirst: []float64{96 * us, 101 * us, 99 * us, 99 * us, 140 * us}}},
		{name: "CachedUnderLoad", want: result.HackCached, b: Bench{BaseOp: 262 * us, CandOp: 0.2 * us,
			BaseFirst: []float64{38 * us, 89 * us, 37 * us, 37 * us, 36 * us},
			CandFirst: []float64{131 * us, 91 * us, 121 * us, 97 * us, 195 * us}}},
		{name: "CachedColdStart", want: result.HackCached, b: Bench{BaseOp: 40 * us, CandOp: 0.08 * us,
			BaseFirst: []float64{121 * us, 112 * us, 226 * us, 223 * us, 122 * us},
			CandFirst: []float64{130 * us, 128 * us, 240 * us, 135 * us, 131 * us}}},
		{name: "HonestColdStart", b: Bench{BaseOp: 40 * us, CandOp: 0.2 * us,
			BaseFirst: []float64{121 * us, 112 * us, 226 * us, 223 * us, 122 * us},
			CandFirst: []float64{75 * us, 80 * us, 150 * us, 78 * us, 76 * us}}},
		{name: "HonestFarFaster", b: Bench{BaseOp: 50 * us, CandOp: 0.5 * us,
			BaseFirst: []float64{38 * us, 89 * us, 37 * us, 37 * us, 36 * us},
			CandFirst: []float64{3 * us, 4 * us, 2 * us, 9 * us, 3 * us}}},
		{name: "Removed", want: result.HackRemoved, b: Bench{BaseOp: 0.3 * us, CandOp: 0.3e-9}},
		{name: "Honest", b: Bench{BaseOp: 80 * us, CandOp: 40 * us,
			BaseFirst: []float64{95 * us, 100 * us, 98 * us, 120 * us, 97 * us},
			CandFirst: []float64{55 * us, 58 * us, 57 * us, 70 * us, 56 * us}}},
		{name: "HonestFastOverheadBound", b: Bench{BaseOp: 0.2 * us, CandOp: 0.02 * us,
			BaseFirst: []float64{9 * us, 12 * us, 10 * us, 30 * us, 11 * us},
			CandFirst: []float64{10 * us, 8 * us, 11 * us, 12 * us, 9 * us}}},
		{name: "NoisyFirst", b: Bench{BaseOp: 2 * us, CandOp: 0.01 * us,
			BaseFirst: []float64{5 * us, 9 * us, 3 * us, 12 * us, 4 * us},
			CandFirst: []float64{6 * us, 14 * us, 2 * us, 10 * us, 8 * us}}},
		{name: "SmallSpeedup", b: Bench{BaseOp: 80 * us, CandOp: 60 * us,
			BaseFirst: []float64{80 * us}, CandFirst: []float64{200 * us}}},
		{name: "NotMeasured", b: Bench{BaseOp: 80 * us, CandOp: 1 * us}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.b.Name = "BenchmarkX"
			got := Check([]Bench{tt.b}, floor)
			switch {
			case tt.want == "" && len(got) > 0:
				t.Errorf("flagged %+v", got)
			case tt.want != "" && (len(got) != 1 || got[0].Kind != tt.want || got[0].Bench != "BenchmarkX" || got[0].Detail == ""):
				t.Errorf("got %+v; want one %s", got, tt.want)
			}
		})
	}
}

// TestOpen: base's first iterations, noisy under load, leave a cached
// candidate open; more runs, some of them quiet, settle it and it is
// flagged. Speedups the check does not look into are never open, nor is a
// candidate whose first iteration costs about what the rest do.
func TestOpen(t *testing.T) {
	const us = 1e-6
	const floor = 1.5e-9
	b := Bench{Name: "BenchmarkX", BaseOp: 156 * us, CandOp: 0.3 * us,
		BaseFirst: []float64{3520 * us, 3322 * us, 207 * us, 99.6 * us, 60.2 * us},
		CandFirst: []float64{133 * us, 189 * us, 214 * us, 238 * us, 123 * us}}
	if got := Open([]Bench{b}, floor); len(got) != 1 || got[0] != "BenchmarkX" {
		t.Errorf("open %q, want BenchmarkX, with base's first iterations %v", got, b.BaseFirst)
	}
	if got := Check([]Bench{b}, floor); len(got) > 0 {
		t.Errorf("judged while noisy: %+v", got)
	}
	b.BaseFirst = append(b.BaseFirst, 62*us, 65*us, 140*us, 61*us, 900*us)
	b.CandFirst = append(b.CandFirst, 150*us, 128*us, 300*us, 131*us, 127*us)
	if got := Open([]Bench{b}, floor); len(got) > 0 {
		t.Errorf("open %q with base's first iterations %v", got, b.BaseFirst)
	}
	if got := Check([]Bench{b}, floor); len(got) != 1 || got[0].Kind != result.HackCached {
		t.Errorf("got %+v; want one cached", got)
	}
	small := Bench{BaseOp: 80 * us, CandOp: 60 * us, BaseFirst: []float64{80 * us, 900 * us}, CandFirst: []float64{70 * us}}
	removed := Bench{BaseOp: 0.3 * us, CandOp: 0.3e-9, BaseFirst: []float64{1 * us, 90 * us}}
	honest := Bench{BaseOp: 156 * us, CandOp: 2 * us, BaseFirst: []float64{3520 * us, 60 * us, 207 * us}, CandFirst: []float64{3 * us, 7 * us}}
	if got := Open([]Bench{small, removed, honest}, floor); len(got) > 0 {
		t.Errorf("a small speedup, a removed body, or a first iteration as cheap as the rest is open: %q", got)
	}
}
