package config

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/jobspec"
)

// TestRun_Options: the flags' forms become the spec's, as a daemon gets it:
// the percentage as given, build flags with the tags, the environment by
// name. In this process the evaluator's options are made from that spec,
// with a fraction and positive switches.
func TestRun_Options(t *testing.T) {
	o := Defaults()
	o.MinSpeedup, o.Timeout, o.BenchBudget = 2.5, 90*time.Second, time.Minute
	o.NoPin, o.NoProfile, o.NoCache, o.TrustTests = true, true, true, true
	o.BuildFlags, o.Tags, o.SlotMemory = []string{"-race -trimpath"}, "noasm", "1G"
	o.CopyFiles, o.Kind, o.Env = []string{".env"}, "ci", []string{"MYAPP_*"}
	r := gitcmd.Repo{Root: t.TempDir()}

	spec := o.Spec(r, "abc", 3, []string{"PATH=/bin", "MYAPP_X=1", "HOME=/home/ada"})
	b, _ := json.Marshal(spec)
	if spec.MinSpeedup != 2.5 || spec.Timeout != jobspec.Duration(90*time.Second) || !spec.NoPin || !spec.NoProfile ||
		!spec.NoCache || !spec.TrustCandidateTests || !slices.Equal(spec.CopyFiles, o.CopyFiles) || spec.MemLimit != 1<<30 ||
		spec.Parallel != 3 || !maps.Equal(spec.Env, map[string]string{"PATH": "/bin", "MYAPP_X": "1"}) {
		t.Errorf("Spec = %s", b)
	}
	if want := []string{"-race", "-trimpath", "-tags=noasm"}; !slices.Equal(spec.BuildFlags, want) {
		t.Errorf("build flags %q, want %q", spec.BuildFlags, want)
	}

	opts := o.Options(r, "abc", 3, nil, nil)
	if opts.MinSpeedup != 0.025 || opts.Timeout != 90*time.Second || opts.Budget != time.Minute || opts.Pin || opts.Profile ||
		opts.ProfileCmd != "" || !opts.NoCache || !opts.TrustCandidateTests || opts.MemLimit != 1<<30 ||
		opts.Kind != "ci" || opts.Metric != evaluator.MetricWall || opts.Sandbox != evaluator.SandboxAuto || opts.Artifacts != r.ArtifactsDir() {
		t.Errorf("Options = %+v", opts)
	}
	if !slices.Equal(opts.BuildFlags, spec.BuildFlags) {
		t.Errorf("build flags %q, want the spec's %q", opts.BuildFlags, spec.BuildFlags)
	}
	if o := (Run{}).Options(r, "", 1, nil, nil); !o.Profile || !o.Pin {
		t.Errorf("without --no-profile and --no-pin: Profile %v, Pin %v", o.Profile, o.Pin)
	}
}

// TestRun_Config: the configuration recorded with a job is the settings by
// their long names, with -j's "auto" kept as a word. It adds the base, the
// slots and the artifacts directory (which apply reads back). What is not a
// setting (the socket, the kind) is left out.
func TestRun_Config(t *testing.T) {
	o := Defaults()
	o.Socket, o.Test = "/tmp/s", "make test"
	var got map[string]any
	if err := json.Unmarshal(o.Config("abc", 4, "/art"), &got); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{"parallel_candidates": "auto", "test": "make test", "min_speedup": 5.0,
		"base_commit": "abc", "slots": 4.0, "artifacts": "/art", "format": "text"} {
		if got[k] != want {
			t.Errorf("%s = %v, want %v", k, got[k], want)
		}
	}
	for _, k := range []string{"Socket", "socket", "Kind", "kind", "bench"} {
		if v, ok := got[k]; ok {
			t.Errorf("%s recorded: %v", k, v)
		}
	}
}
