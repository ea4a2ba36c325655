package config

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/optimizer-dev/optimizer/client"
)

func TestJobs(t *testing.T) {
	for _, tt := range []struct {
		name    string
		args    []string
		states  []string // what the daemon is asked for
		wantErr string
	}{
		{"Defaults", nil, client.Active, ""},
		{"All", []string{"--all", "-n", "5", "--format", "json"}, nil, ""},
		{"Markdown", []string{"--format", "markdown"}, nil, `--format "markdown": want text or json`},
		{"NoLimit", []string{"-n", "0"}, nil, "--limit 0: want 1 to 1000"},
		{"TooMany", []string{"-n", "1001"}, nil, "--limit 1001"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var j Jobs
			fs := pflag.NewFlagSet("jobs", pflag.ContinueOnError)
			j.Register(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			err := j.Validate()
			if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("Validate = %v, want %q", err, tt.wantErr)
			}
			if err == nil {
				if lo := j.ListOptions(); lo.Limit != j.Limit || !slices.Equal(lo.States, tt.states) {
					t.Errorf("ListOptions = %+v, want limit %d and states %q", lo, j.Limit, tt.states)
				}
			}
		})
	}
}
