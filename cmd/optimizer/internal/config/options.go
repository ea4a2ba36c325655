package config

import (
	"cmp"
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

// Spec is the job spec of o's settings for a job on n slots (0 lets a
// daemon choose). It holds environ's values of api.DefaultEnv and --env.
// Every command that runs a job, in this process or through a daemon,
// starts here.
func (o Run) Spec(n int, environ []string) jobspec.Spec {
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
	}
}

// Options is the evaluator's options for a job of o's on n slots in the
// repository r at base, with its artifacts under artifacts ("" is the
// repository's). It is o's spec (Spec) as evaluator.OptionsOf reads it,
// with what only a job in this process has, and the spec as the store
// records it (jobspec.Record).
func (o Run) Options(r gitcmd.Repo, base string, n int, artifacts string, cands []candidate.Candidate, logger *slog.Logger) (evaluator.Options, error) {
	return o.OptionsFor(o.Spec(n, os.Environ()), r, base, n, artifacts, cands, logger)
}

// OptionsFor is Options for the spec spec, which may differ from o's own:
// optimize's loop changes its jobs' pairs, budget and benchmark filter.
func (o Run) OptionsFor(spec jobspec.Spec, r gitcmd.Repo, base string, n int, artifacts string, cands []candidate.Candidate, logger *slog.Logger) (evaluator.Options, error) {
	opts := evaluator.OptionsOf(spec)
	opts.Kind, opts.Repo, opts.Base, opts.Candidates = o.Kind, r.Root, base, cands
	opts.SandboxBind, opts.SandboxBindNamed = o.SandboxBind, true
	opts.Shard = o.Shard
	opts.Artifacts = cmp.Or(artifacts, r.ArtifactsDir())
	opts.Logger = logger
	config, err := jobspec.Record(spec, base, n, opts.Artifacts, false)
	if err != nil {
		return evaluator.Options{}, err
	}
	opts.Config = config
	return opts, nil
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
