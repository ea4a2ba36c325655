package config

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestLoop_Validate: every setting the loop cannot run with is refused,
// naming the flag to fix; the defaults with a generator pass.
func TestLoop_Validate(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		run  func(*Run)
		want string // a part of the error; "" is none
	}{
		{"Good", []string{"--generate", "g"}, nil, ""},
		{"EditOnly", []string{"--generate-edit", "g"}, nil, ""},
		{"NoGenerator", nil, nil, "no generator"},
		{"Candidates", []string{"--generate", "g"}, func(r *Run) { r.CandidateRefs = []string{"x"} }, "optimize takes its candidates from generators"},
		{"Rounds", []string{"--generate", "g", "--rounds", "0"}, nil, "--rounds 0: need at least 1"},
		{"PerRound", []string{"--generate", "g", "--per-round", "0"}, nil, "--per-round 0"},
		{"Repairs", []string{"--generate", "g", "--repairs", "-1"}, nil, "--repairs -1: must not be negative"},
		{"HotTargets", []string{"--generate", "g", "--hot-targets", "0"}, nil, "--hot-targets 0"},
		{"Budget", []string{"--generate", "g", "--budget", "-1s"}, nil, "--budget must not be negative"},
		{"GenTimeout", []string{"--generate", "g", "--generator-timeout", "0s"}, nil, "--generator-timeout must be positive"},
		{"HoldoutAuto", []string{"--generate", "g", "--holdout", "auto"}, nil, ""},
		{"HoldoutNone", []string{"--generate", "g", "--holdout", "0"}, nil, ""},
		{"HoldoutOne", []string{"--generate", "g", "--holdout", "1"}, nil, `--holdout "1": want auto, or a fraction`},
		{"HoldoutWord", []string{"--generate", "g", "--holdout", "half"}, nil, `--holdout "half"`},
		{"Markdown", []string{"--generate", "g"}, func(r *Run) { r.Format = FormatMarkdown }, "--format markdown"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l, run := LoopDefaults(), Defaults()
			fs := pflag.NewFlagSet("optimize", pflag.ContinueOnError)
			l.Register(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			if tt.run != nil {
				tt.run(&run)
			}
			err := l.Validate(run)
			if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("Validate = %v, want %q", err, tt.want)
			}
		})
	}
}
