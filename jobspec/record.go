package jobspec

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// Recorded is a job's configuration as the store records it (jobs.config):
// its spec, with what the job was given besides. Every job is recorded so,
// in the CLI's process and on a daemon alike (Record).
type Recorded struct {
	Spec
	// Env names the variables the spec's Env set, sorted. Their values
	// may be secrets, which the store does not keep.
	Env        []string `json:"env,omitempty"`
	BaseCommit string   `json:"base_commit"`
	Slots      int      `json:"slots"` // the job's pool's size
	Artifacts  string   `json:"artifacts"`
	Daemon     bool     `json:"daemon,omitempty"` // a daemon ran the job
}

// Record is the JSON of the configuration recorded for a job of spec's at
// base on slots slots, with its artifacts under artifacts; daemon says a
// daemon runs it. Spec.Config, which older clients send, is left out.
func Record(spec Spec, base string, slots int, artifacts string, daemon bool) ([]byte, error) {
	r := Recorded{Spec: spec, Env: slices.Sorted(maps.Keys(spec.Env)), BaseCommit: base, Slots: slots, Artifacts: artifacts, Daemon: daemon}
	r.Spec.Env, r.Spec.Config = nil, nil
	b, err := json.Marshal(r)
	if err != nil { // a threshold that is no number, such as NaN
		return nil, fmt.Errorf("record the job's settings: %w", err)
	}
	return b, nil
}
