package config

import (
	"testing"
)

func TestParallel(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Parallel
		ok   bool
	}{
		{"auto", ParallelAuto, true},
		{"0", 0, true},
		{"4", 4, true},
		{"-1", 0, false},
		{"many", 0, false},
	} {
		t.Run(tt.in, func(t *testing.T) {
			var p Parallel
			err := p.Set(tt.in)
			if tt.ok != (err == nil) || (tt.ok && p != tt.want) {
				t.Errorf("Set(%q) = %v, %v; want %v ok %v", tt.in, p, err, tt.want, tt.ok)
			}
		})
	}
}
