package config

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestCI: ci's flags over the defaults, and what Validate refuses.
func TestCI(t *testing.T) {
	for _, tt := range []struct {
		name   string
		args   []string
		failOn []string
		want   string // a part of the error; "" is none
	}{
		{"Defaults", nil, []string{"regression"}, ""},
		{"Gates", []string{"--fail-on", "regression,allocs"}, []string{"regression", "allocs"}, ""},
		{"UnknownGate", []string{"--fail-on", "slow"}, nil, `--fail-on "slow": want regression, mixed, allocs or none`},
		{"NoneAndMore", []string{"--fail-on", "none,mixed"}, nil, "--fail-on none cannot be combined"},
		{"Budget", []string{"--budget", "-1m"}, nil, "--budget -1m0s: must be positive, or 0 for none"},
		{"NoOut", []string{"--out", ""}, nil, "--out: name a directory"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, run := CIDefaults(), Defaults()
			fs := pflag.NewFlagSet("ci", pflag.ContinueOnError)
			run.Register(fs)
			c.Register(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			err := c.Validate()
			if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("Validate = %v, want %q", err, tt.want)
			}
			if tt.failOn != nil && !slices.Equal(c.FailOn, tt.failOn) {
				t.Errorf("FailOn = %q, want %q", c.FailOn, tt.failOn)
			}
			if f := fs.Lookup("base"); f.DefValue != "" || !strings.Contains(f.Usage, "pull request's base") {
				t.Errorf("--base: default %q, usage %q: want ci's", f.DefValue, f.Usage)
			}
		})
	}
}
