package config

import (
	"encoding/json"
	"log/slog"
	"os"
	"slices"
	"strings"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/jobspec"
	"github.com/optimizer-dev/optimizer/machine"
)

// Spec is the job spec of o's settings for a job at base in r on n slots (0
// lets a daemon choose). It holds environ's values of api.DefaultEnv and
// --env, and the configuration recorded (Config). Every command that runs a
// job, in this process or through a daemon, starts here.
func (o Run) Spec(r gitcmd.Repo, base string, n int, environ []string) jobspec.Spec {
	return jobspec.Spec{
		Test:                o.Test,
		TestReports:         o.TestReports,
		Bench:               o.Bench,
		BenchFormat:         o.BenchFormat,
		BenchReports:        o.BenchReports,
		Setup:               o.Setup,
		CopyFiles:           o.CopyFiles,
		Timeout:             jobspec.Duration(o.Timeout),
		MinSpeedup:          o.MinSpeedup,
		MinPairs:            o.MinPairs,
		MaxPairs:            o.MaxPairs,
		BenchBudget:         jobspec.Duration(o.BenchBudget),
		Metric:              o.Metric,
		BenchFilter:         o.BenchFilter,
		BenchArgs:           o.BenchArgs,
		BuildFlags:          o.GoBuildFlags(),
		NoPin:               o.NoPin,
		MemLimit:            o.MemLimit(),
		Sandbox:             o.Sandbox,
		SandboxNet:          o.SandboxNet,
		NoiseCheck:          o.NoiseCheck,
		All:                 o.All,
		TrustCandidateTests: o.TrustTests,
		NoCache:             o.NoCache,
		NoProfile:           o.NoProfile,
		ProfileCmd:          o.ProfileCmd,
		Parallel:            n,
		Env:                 api.EnvOf(append(slices.Clone(api.DefaultEnv), o.Env...), environ),
		Config:              o.Config(base, n, r.ArtifactsDir()),
	}
}

// Options is the evaluator's options for a job of o's on n slots in the
// repository r at base. It is o's spec (Spec) as evaluator.OptionsOf reads
// it, with what only a job in this process has.
func (o Run) Options(r gitcmd.Repo, base string, n int, cands []candidate.Candidate, logger *slog.Logger) evaluator.Options {
	spec := o.Spec(r, base, n, os.Environ())
	opts := evaluator.OptionsOf(spec)
	opts.Kind, opts.Repo, opts.Base, opts.Candidates = o.Kind, r.Root, base, cands
	opts.SandboxBind, opts.SandboxBindNamed = o.SandboxBind, true
	opts.Shard = o.Shard
	opts.Artifacts = r.ArtifactsDir()
	opts.Logger = logger
	opts.Config = spec.Config
	return opts
}

// GoBuildFlags returns the go test -c flags: --build-flags split on
// spaces, then --tags.
func (o Run) GoBuildFlags() []string {
	var out []string
	for _, f := range o.BuildFlags {
		out = append(out, strings.Fields(f)...)
	}
	if o.Tags != "" {
		out = append(out, "-tags="+o.Tags)
	}
	return out
}

// MemLimit is --slot-memory in bytes; Validate has checked it. Without the
// flag it is machine.DefaultMemLimit.
func (o Run) MemLimit() int64 {
	switch o.SlotMemory {
	case "none":
		return 0
	case "":
		return machine.DefaultMemLimit(o.Test, o.Bench)
	}
	n, _ := ParseSize(o.SlotMemory)
	return n
}

// recorded is a job's configuration as the store records it: the effective
// settings, the base, the slots and the artifacts directory (which
// apply.ArtifactsDir reads back for optimizer apply).
type recorded struct {
	Run
	BaseCommit string `json:"base_commit"`
	Slots      int    `json:"slots"`
	Artifacts  string `json:"artifacts"`
}

// Config is evaluator.Options.Config for a job of o's at base on n slots
// with its artifacts under artifacts.
func (o Run) Config(base string, n int, artifacts string) []byte {
	b, _ := json.Marshal(recorded{Run: o, BaseCommit: base, Slots: n, Artifacts: artifacts})
	return b
}
