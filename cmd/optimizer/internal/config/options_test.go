package config

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
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

	spec := o.Spec(3, []string{"PATH=/bin", "MYAPP_X=1", "HOME=/home/ada"})
	b, _ := json.Marshal(spec)
	if spec.MinSpeedup != 2.5 || spec.Timeout != jobspec.Duration(90*time.Second) || !spec.NoPin || !spec.NoProfile ||
		!spec.NoCache || !spec.TrustCandidateTests || !slices.Equal(spec.CopyFiles, o.CopyFiles) || spec.MemLimit != 1<<30 ||
		spec.Parallel != 3 || !maps.Equal(spec.Env, map[string]string{"PATH": "/bin", "MYAPP_X": "1"}) {
		t.Errorf("Spec = %s", b)
	}
	if want := []string{"-race", "-trimpath", "-tags=noasm"}; !slices.Equal(spec.BuildFlags, want) {
		t.Errorf("build flags %q, want %q", spec.BuildFlags, want)
	}

	opts, err := o.Options(r, "abc", 3, "", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if opts.MinSpeedup != 0.025 || opts.Timeout != 90*time.Second || opts.Budget != time.Minute || opts.Pin || opts.Profile ||
		opts.ProfileCmd != "" || !opts.NoCache || !opts.TrustCandidateTests || opts.MemLimit != 1<<30 ||
		opts.Kind != "ci" || opts.Metric != evaluator.MetricWall || opts.Sandbox != evaluator.SandboxAuto || opts.Artifacts != r.ArtifactsDir() {
		t.Errorf("Options = %+v", opts)
	}
	if !slices.Equal(opts.BuildFlags, spec.BuildFlags) {
		t.Errorf("build flags %q, want the spec's %q", opts.BuildFlags, spec.BuildFlags)
	}
	if o, _ := (Run{}).Options(r, "", 1, "", nil, nil); !o.Profile || !o.Pin {
		t.Errorf("without --no-profile and --no-pin: Profile %v, Pin %v", o.Profile, o.Pin)
	}
}

// TestRun_Recorded: the configuration recorded with a job is its spec, in
// the spec's units: the threshold in percent, durations as Go durations.
// The base, the slots and the artifacts directory are beside it. The environment is
// recorded by name, and what only the CLI has (the report's format, the
// store, the socket) is not recorded.
func TestRun_Recorded(t *testing.T) {
	o := Defaults()
	o.Socket, o.Test, o.Format, o.DB = "/tmp/s", "make test", FormatJSON, "/tmp/x.db"
	o.MinSpeedup, o.Timeout, o.Env = 2.5, 90*time.Second, []string{"MYAPP_TOKEN"}
	t.Setenv("MYAPP_TOKEN", "secret")
	opts, err := o.Options(gitcmd.Repo{Root: "/r"}, "abc", 4, "/art", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got jobspec.Recorded
	dec := json.NewDecoder(bytes.NewReader(opts.Config))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("recorded %s: %v", opts.Config, err)
	}
	if got.Test != "make test" || got.MinSpeedup != 2.5 || got.Timeout != jobspec.Duration(90*time.Second) ||
		got.BaseCommit != "abc" || got.Slots != 4 || got.Artifacts != "/art" || got.Daemon || !slices.Contains(got.Env, "MYAPP_TOKEN") {
		t.Errorf("recorded %s, want the spec at abc on 4 slots in /art", opts.Config)
	}
	for _, s := range []string{"secret", "/tmp/s", "/tmp/x.db", `"format"`} {
		if bytes.Contains(opts.Config, []byte(s)) {
			t.Errorf("recorded %s: holds %s", opts.Config, s)
		}
	}
	o.MinSpeedup = math.NaN()
	if _, err := o.Options(gitcmd.Repo{Root: "/r"}, "abc", 4, "", nil, nil); err == nil {
		t.Error("a NaN threshold was recorded without an error")
	}
}
