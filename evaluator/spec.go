package evaluator

import (
	"maps"
	"slices"
	"time"

	"github.com/optimizer-dev/optimizer/jobspec"
)

// DefaultMinSpeedup is the threshold of Options whose MinSpeedup is zero:
// jobspec's default, a percentage, as the fraction Options hold.
const DefaultMinSpeedup = jobspec.DefaultMinSpeedup / percent

// percent turns a spec's percentage into a fraction: the one place the
// threshold changes unit.
const percent = 100.0

// OptionsOf is the options a job with the settings s runs with: the one
// mapping from a job spec, which the CLI and the daemon share. The caller
// adds what s does not say: the repository, base, candidates, slots,
// artifacts, logger and events.
func OptionsOf(s jobspec.Spec) Options {
	o := Options{
		Test:                s.Test,
		TestReports:         s.TestReports,
		Setup:               s.Setup,
		CopyFiles:           s.CopyFiles,
		Bench:               s.Bench,
		BenchFormat:         s.BenchFormat,
		BenchReports:        s.BenchReports,
		Timeout:             time.Duration(s.Timeout),
		MinSpeedup:          s.MinSpeedup / percent,
		MinPairs:            s.MinPairs,
		MaxPairs:            s.MaxPairs,
		Budget:              time.Duration(s.BenchBudget),
		Metric:              Metric(s.Metric),
		BenchFilter:         s.BenchFilter,
		BenchArgs:           s.BenchArgs,
		BuildFlags:          s.BuildFlags,
		Pin:                 !s.NoPin,
		MemLimit:            s.MemLimit,
		Sandbox:             SandboxMode(s.Sandbox),
		SandboxNet:          s.SandboxNet,
		NoiseCheck:          s.NoiseCheck,
		All:                 s.All,
		TrustCandidateTests: s.TrustCandidateTests,
		NoCache:             s.NoCache,
		Quick:               s.Quick,
		Profile:             !s.NoProfile && s.ProfileCmd == "",
		ProfileCmd:          s.ProfileCmd,
	}
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		o.Env = append(o.Env, k+"="+s.Env[k])
	}
	return o
}
