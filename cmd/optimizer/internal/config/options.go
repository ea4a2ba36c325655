package config

import (
	"encoding/json"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/optimizer-dev/optimizer/client"
	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/gitcmd"
)

// Options is the evaluator's options for a job of o's on n slots in the
// repository r at base, with the configuration recorded (Config) and the
// artifacts in r's directory for them. Every command that runs a job, in
// this process or through a daemon (client.JobOptionsOf), starts here.
func (o Run) Options(r gitcmd.Repo, base string, n int, cands []candidate.Candidate, logger *slog.Logger) evaluator.Options {
	opts := evaluator.Options{
		Kind:                o.Kind,
		Repo:                r.Root,
		Base:                base,
		Candidates:          cands,
		Parallel:            n,
		Test:                o.Test,
		TestReports:         o.TestReports,
		Setup:               o.Setup,
		CopyFiles:           o.CopyFiles,
		Bench:               o.Bench,
		BenchFormat:         o.BenchFormat,
		BenchReports:        o.BenchReports,
		Timeout:             o.Timeout,
		MinSpeedup:          o.MinSpeedup / 100,
		MinPairs:            o.MinPairs,
		MaxPairs:            o.MaxPairs,
		Budget:              o.BenchBudget,
		Metric:              evaluator.Metric(o.Metric),
		BenchFilter:         o.BenchFilter,
		BenchArgs:           o.BenchArgs,
		BuildFlags:          o.GoBuildFlags(),
		Pin:                 !o.NoPin,
		MemLimit:            o.MemLimit(),
		Sandbox:             evaluator.SandboxMode(o.Sandbox),
		SandboxNet:          o.SandboxNet,
		SandboxBind:         o.SandboxBind,
		SandboxBindNamed:    true,
		NoiseCheck:          o.NoiseCheck,
		All:                 o.All,
		TrustCandidateTests: o.TrustTests,
		Shard:               o.Shard,
		NoCache:             o.NoCache,
		Profile:             !o.NoProfile && o.ProfileCmd == "",
		ProfileCmd:          o.ProfileCmd,
		Artifacts:           r.ArtifactsDir(),
		Logger:              logger,
		Env:                 o.JobEnv(os.Environ()),
	}
	opts.Config = o.Config(base, n, opts.Artifacts)
	return opts
}

// JobEnv is what of environ a job's commands get set: client.DefaultEnv and
// --env, as KEY=VALUE, sorted. In this process they have it anyway; a
// daemon's job gets it from here.
func (o Run) JobEnv(environ []string) []string {
	m := client.EnvOf(append(slices.Clone(client.DefaultEnv), o.Env...), environ)
	var env []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		env = append(env, k+"="+m[k])
	}
	return env
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
// flag it is evaluator.DefaultMemLimit.
func (o Run) MemLimit() int64 {
	switch o.SlotMemory {
	case "none":
		return 0
	case "":
		return evaluator.DefaultMemLimit(o.Test, o.Bench)
	}
	n, _ := ParseSize(o.SlotMemory)
	return n
}

// recorded is a job's configuration as the store records it: the effective
// settings, the base, the slots and the artifacts directory (which
// evaluator.ArtifactsDir reads back for optimizer apply).
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
