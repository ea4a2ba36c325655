package daemon

import (
	"encoding/json"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/evaluator/candidate"
)

// evaluatorOptions turns the spec into the evaluator's options: the same
// mapping cmd makes from the flags.
func (spec *jobSpec) evaluatorOptions(parallel, cpus int, logger *slog.Logger) (evaluator.Options, error) {
	o := spec.Request.Options
	cands := make([]candidate.Candidate, len(spec.Candidates))
	for i, c := range spec.Candidates {
		cands[i] = c.candidate()
	}
	kind := spec.Request.Kind
	if kind == "" {
		kind = "run"
	}
	minSpeedup := o.MinSpeedup / 100
	opts := evaluator.Options{
		Kind:                kind,
		Repo:                spec.Root,
		Base:                spec.Base,
		Candidates:          cands,
		Parallel:            parallel,
		CPUs:                cpus,
		Test:                o.Test,
		TestReports:         o.TestReports,
		Setup:               o.Setup,
		CopyFiles:           o.CopyFiles,
		Bench:               o.Bench,
		BenchFormat:         o.BenchFormat,
		BenchReports:        o.BenchReports,
		MinSpeedup:          minSpeedup,
		MinPairs:            o.MinPairs,
		MaxPairs:            o.MaxPairs,
		Metric:              evaluator.Metric(o.Metric),
		BenchFilter:         o.BenchFilter,
		BenchArgs:           o.BenchArgs,
		BuildFlags:          o.BuildFlags,
		Pin:                 !o.NoPin,
		MemLimit:            o.MemLimit,
		Sandbox:             evaluator.SandboxMode(o.Sandbox),
		SandboxNet:          o.SandboxNet,
		NoiseCheck:          o.NoiseCheck,
		All:                 o.All,
		TrustCandidateTests: o.TrustCandidateTests,
		NoCache:             o.NoCache,
		Quick:               o.Quick,
		Profile:             !o.NoProfile && o.ProfileCmd == "",
		ProfileCmd:          o.ProfileCmd,
		Artifacts:           filepath.Join(spec.CommonDir, "optimizer", "artifacts"),
		Logger:              logger,
	}
	if o.Timeout != "" {
		opts.Timeout, _ = time.ParseDuration(o.Timeout) // validate checked it
	}
	if o.BenchBudget != "" {
		opts.Budget, _ = time.ParseDuration(o.BenchBudget)
	}
	opts.Config = spec.config(parallel, opts.Artifacts)
	return opts, nil
}

// config is the configuration recorded with the job in the repository's
// store: the client's own when it sent one (the CLI sends its flags), else
// the request's options; with what show and apply read back added.
func (spec *jobSpec) config(parallel int, artifacts string) []byte {
	m := map[string]any{}
	if len(spec.Request.Options.Config) > 0 {
		json.Unmarshal(spec.Request.Options.Config, &m)
	} else {
		b, _ := json.Marshal(spec.Request.Options)
		json.Unmarshal(b, &m)
	}
	m["base_commit"] = spec.Base
	m["slots"] = parallel
	m["artifacts"] = artifacts
	m["daemon"] = true
	b, _ := json.Marshal(m)
	return b
}
