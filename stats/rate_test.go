package stats

import (
	"math"
	"testing"
)

// TestWilson checks the interval against the score formula evaluated
// separately (Python, to five digits), and its empty case.
func TestWilson(t *testing.T) {
	for _, c := range []struct {
		k, n   int
		lo, hi float64
	}{
		{0, 300, 0, 0.01264},
		{3, 300, 0.00341, 0.02898},
		{150, 300, 0.44378, 0.55622},
		{300, 300, 0.98736, 1},
	} {
		lo, hi := Wilson(c.k, c.n)
		if math.Abs(lo-c.lo) > 5e-5 || math.Abs(hi-c.hi) > 5e-5 {
			t.Errorf("Wilson(%d, %d) = [%.5f, %.5f], want [%.5f, %.5f]", c.k, c.n, lo, hi, c.lo, c.hi)
		}
	}
	if lo, hi := Wilson(0, 0); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("Wilson(0, 0) = [%v, %v], want NaN", lo, hi)
	}
}
