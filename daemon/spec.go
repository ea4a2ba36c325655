package daemon

import (
	"log/slog"
	"path/filepath"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/jobspec"
)

// evaluatorOptions turns the spec into the evaluator's options: the
// mapping cmd makes too (evaluator.OptionsOf). The job runs on parallel
// slots, which its pool gives it. The store records the request's spec
// (jobspec.Record); an older client's options.config is ignored.
func (spec *jobSpec) evaluatorOptions(parallel, cpus int, logger *slog.Logger) (evaluator.Options, error) {
	opts := evaluator.OptionsOf(spec.Request.Options)
	opts.Kind = spec.Request.Kind
	if opts.Kind == "" {
		opts.Kind = "run"
	}
	opts.Repo, opts.Base = spec.Root, spec.Base
	opts.Candidates = make([]candidate.Candidate, len(spec.Candidates))
	for i, c := range spec.Candidates {
		opts.Candidates[i] = c.candidate()
	}
	opts.CPUs, opts.Logger = cpus, logger
	opts.Artifacts = filepath.Join(spec.CommonDir, "optimizer", "artifacts")
	config, err := jobspec.Record(spec.Request.Options, spec.Base, parallel, opts.Artifacts, true)
	if err != nil {
		return evaluator.Options{}, err
	}
	opts.Config = config
	return opts, nil
}
