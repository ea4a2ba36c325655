package main

import (
	"math"
	"strings"
	"testing"
)

// TestSignP: exact two-sided sign-test p-values.
func TestSignP(t *testing.T) {
	for _, tc := range []struct {
		k, n int
		want float64
	}{
		{0, 20, 2 / math.Pow(2, 20)},
		{10, 20, 1},
		{2, 4, 1},
		{0, 4, 0.125},
		{4, 4, 0.125},
		{1, 5, 0.375}, // 2 × (1 + 5) / 32
	} {
		if got := signP(tc.k, tc.n); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("signP(%d, %d) = %g, want %g", tc.k, tc.n, got, tc.want)
		}
	}
}

// TestWriteTable: a variant twice as fast as base in every round is 2×,
// faster in all of them; one as fast is not.
func TestWriteTable(t *testing.T) {
	secs := map[string][]float64{
		"base": {2, 2.1, 1.9, 2, 2.2, 2, 1.8, 2},
		"aa":   {2, 2.1, 1.9, 2, 2.2, 2, 1.8, 2},
		"io":   {1, 1.05, 0.95, 1, 1.1, 1, 0.9, 1},
	}
	var b strings.Builder
	writeTable(&b, []string{"base", "aa", "io"}, secs)
	out := b.String()
	if !strings.Contains(out, "| io | 2.000× [2.000, 2.000] | 8 of 8 |") || !strings.Contains(out, "| aa | 1.000×") || !strings.Contains(out, "| 0 of 8 |") {
		t.Errorf("table:\n%s", out)
	}
}
