package stats

import (
	"encoding/binary"
	"math"
	"testing"
)

// FuzzCompare feeds arbitrary pairs (as little-endian float64s) to Compare
// and Look. Whatever comes in, nothing panics, invalid values are refused,
// and any estimate has its centre inside its interval and a p in [0, 1].
func FuzzCompare(f *testing.F) {
	seed := func(vs ...float64) []byte {
		b := make([]byte, 8*len(vs))
		for i, v := range vs {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
		}
		return b
	}
	f.Add(seed(1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2), 0.05)
	f.Add(seed(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1), 0.01)
	f.Add(seed(1e-300, 1e300, 1, 0, 3, math.NaN()), 0.5)
	f.Add(seed(5e-324, 5e-324, 1, 1), 0.2)
	f.Fuzz(func(t *testing.T, data []byte, alpha float64) {
		var ps []Pair
		for i := 0; i+16 <= len(data) && len(ps) < 64; i += 16 {
			ps = append(ps, Pair{
				Base: math.Float64frombits(binary.LittleEndian.Uint64(data[i:])),
				Cand: math.Float64frombits(binary.LittleEndian.Uint64(data[i+8:])),
			})
		}
		e, err := Compare(ps, alpha)
		if err == nil {
			if !(e.Low <= e.Speedup && e.Speedup <= e.High) || !(e.P >= 0 && e.P <= 1) || e.Pairs != len(ps) {
				t.Fatalf("Compare(%v, %v) = %+v", ps, alpha, e)
			}
		}
		rounds := make([][]Pair, len(ps)/2)
		for r := range rounds {
			rounds[r] = ps[2*r : 2*r+2]
		}
		dec := Sequential{MinSpeedup: 0.05}.Look(nil, rounds)
		if dec.Err == nil {
			a := dec.Aggregate
			if !(a.Low <= a.Speedup && a.Speedup <= a.High) {
				t.Fatalf("Look(%v) aggregate %+v", rounds, a)
			}
		} else if dec.Settled || dec.Verdict != NotFaster {
			t.Fatalf("Look(%v) failed with %v but says %s, settled %v", rounds, dec.Err, dec.Verdict, dec.Settled)
		}
	})
}
