package config

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/client"
	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/gitcmd"
)

// TestRun_Options: the flags' forms become the evaluator's (a percentage a
// fraction, negated switches, build flags with the tags), and the daemon's
// request made from those options (client.JobOptionsOf) says what the
// flags said.
func TestRun_Options(t *testing.T) {
	o := Defaults()
	o.MinSpeedup, o.Timeout, o.BenchBudget = 2.5, 90*time.Second, time.Minute
	o.NoPin, o.NoProfile, o.NoCache, o.TrustTests = true, true, true, true
	o.BuildFlags, o.Tags, o.SlotMemory = []string{"-race -trimpath"}, "noasm", "1G"
	o.CopyFiles, o.Kind = []string{".env"}, "ci"
	r := gitcmd.Repo{Root: t.TempDir()}

	opts := o.Options(r, "abc", 3, nil, nil)
	if opts.MinSpeedup != 0.025 || opts.Pin || opts.Profile || opts.ProfileCmd != "" || !opts.NoCache ||
		!opts.TrustCandidateTests || opts.MemLimit != 1<<30 || opts.Parallel != 3 || opts.Kind != "ci" ||
		opts.Metric != evaluator.MetricWall || opts.Sandbox != evaluator.SandboxAuto || opts.Artifacts != r.ArtifactsDir() {
		t.Errorf("Options = %+v", opts)
	}
	if want := []string{"-race", "-trimpath", "-tags=noasm"}; !slices.Equal(opts.BuildFlags, want) {
		t.Errorf("build flags %q, want %q", opts.BuildFlags, want)
	}
	if o := (Run{}).Options(r, "", 1, nil, nil); !o.Profile || !o.Pin {
		t.Errorf("without --no-profile and --no-pin: Profile %v, Pin %v", o.Profile, o.Pin)
	}

	req := client.JobOptionsOf(opts)
	if req.MinSpeedup != 2.5 || req.Timeout != "1m30s" || req.BenchBudget != "1m0s" || !req.NoPin || !req.NoProfile ||
		!req.NoCache || !slices.Equal(req.CopyFiles, o.CopyFiles) || req.MemLimit != 1<<30 || !slices.Equal(req.BuildFlags, opts.BuildFlags) {
		t.Errorf("the daemon's form: %+v", req)
	}
}

// TestRun_Config: the configuration recorded with a job is the settings by
// their long names, -j's "auto" kept as a word, with the base, the slots
// and the artifacts directory (which apply reads back); what is not a
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
