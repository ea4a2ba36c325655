package config

import (
	"testing"

	"github.com/spf13/pflag"
)

func TestClosestFlag(t *testing.T) {
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	o := Defaults()
	o.Register(fs)
	fs.Bool("secret", false, "")
	fs.MarkHidden("secret")
	for _, tt := range []struct{ name, want string }{
		{"repo", "repo"},
		{"rpeo", "repo"},                   // a swap is one edit
		{"tiemout", "timeout"},             // so is this one
		{"paralel", "parallel-candidates"}, // the start of a long name
		{"bench-budgte", "bench-budget"},
		{"secrte", ""}, // hidden flags are never suggested
		{"frobnicate", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := ClosestFlag(fs, tt.name); got != tt.want {
				t.Errorf("ClosestFlag(%q) = %q, want %q", tt.name, got, tt.want)
			}
		})
	}
}

func TestEditDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "abc", 0}, {"", "abc", 3}, {"abc", "abd", 1},
		{"abc", "acb", 1}, {"abc", "ab", 1}, {"kitten", "sitting", 3},
	} {
		if got := editDistance(tt.a, tt.b); got != tt.want || editDistance(tt.b, tt.a) != got {
			t.Errorf("editDistance(%q, %q) = %d, want %d both ways", tt.a, tt.b, got, tt.want)
		}
	}
}
