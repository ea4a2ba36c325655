package daemon

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/evaluator/candidate"
)

// evaluatorOptions turns the spec into the evaluator's options: the
// mapping cmd makes too (evaluator.OptionsOf). The job runs on parallel
// slots, which its pool gives it; the recorded configuration says so.
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
	config, err := spec.config(parallel, opts.Artifacts)
	if err != nil {
		return evaluator.Options{}, err
	}
	opts.Config = config
	return opts, nil
}

// config is the configuration recorded with the job in the repository's
// store. It is the client's own when it sent one (the CLI sends its flags),
// else the request's options. The base, the slots and the artifacts are
// added.
func (spec *jobSpec) config(parallel int, artifacts string) ([]byte, error) {
	src := []byte(spec.Request.Options.Config)
	if len(src) == 0 || string(src) == "null" {
		var err error
		if src, err = json.Marshal(spec.Request.Options); err != nil {
			return nil, err
		}
	}
	var m map[string]any
	if err := json.Unmarshal(src, &m); err != nil || m == nil {
		return nil, fmt.Errorf("options.config is no JSON object: %v", err)
	}
	m["base_commit"] = spec.Base
	m["slots"] = parallel
	m["artifacts"] = artifacts
	m["daemon"] = true
	return json.Marshal(m)
}
