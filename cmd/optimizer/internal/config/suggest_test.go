package config

import (
	"slices"
	"strings"
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

func TestClosestFlags(t *testing.T) {
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	o := Defaults()
	o.Register(fs)
	for _, tt := range []struct {
		name string
		want []string
	}{
		// A whole name one edit away comes before a name whose start is.
		{"candidate", []string{"candidates", "candidate-ref"}},
		{"candidates-ref", []string{"candidate-ref"}},
		{"rpeo", []string{"repo"}},
		{"frobnicate", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := ClosestFlags(fs, tt.name); !slices.Equal(got, tt.want) {
				t.Errorf("ClosestFlags(%q) = %q, want %q", tt.name, got, tt.want)
			}
		})
	}
}

func TestPercent(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"5", 5, true}, {"5%", 5, true}, {" 2.5 % ", 2.5, true}, {"0", 0, true},
		{"five", 0, false}, {"%", 0, false}, {"5%%", 0, false}, {"NaN", 0, false}, {"", 0, false},
	} {
		t.Run(tt.in, func(t *testing.T) {
			var v float64
			err := Percent{&v}.Set(tt.in)
			if (err == nil) != tt.ok || v != tt.want {
				t.Errorf("Set(%q) = %v, %v; want %v, ok %v", tt.in, v, err, tt.want, tt.ok)
			}
			if err != nil && !strings.Contains(err.Error(), "5%") {
				t.Errorf("Set(%q): %v does not say what a percentage looks like", tt.in, err)
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
