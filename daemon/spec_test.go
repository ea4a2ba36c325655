package daemon

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/jobspec"
)

// TestJobSpec_Recorded: the configuration a job records is its request's
// spec, in the spec's units, with the base, the slots the pool gives it and
// the artifacts. An older client's options.config, "null" or its own
// flags, is ignored. The environment's values are not recorded, only names.
func TestJobSpec_Recorded(t *testing.T) {
	for _, config := range []string{``, `null`, `{"format": "text", "min_speedup": 2.5, "timeout": 60000000000}`, `[1]`} {
		t.Run(config, func(t *testing.T) {
			spec := &jobSpec{Base: "b", CommonDir: "/r/.git", Request: api.JobRequest{Options: jobspec.Spec{
				Test: "go test", Timeout: jobspec.Duration(90 * time.Second), MinSpeedup: 7.5,
				Env: map[string]string{"TOKEN": "secret", "PATH": "/bin"}, Config: json.RawMessage(config)}}}
			opts, err := spec.evaluatorOptions(3, 2, nil)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(opts.Config, []byte("secret")) || bytes.Contains(opts.Config, []byte("format")) {
				t.Errorf("recorded %s: holds an environment value or the client's own config", opts.Config)
			}
			var got jobspec.Recorded
			dec := json.NewDecoder(bytes.NewReader(opts.Config))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&got); err != nil {
				t.Fatalf("recorded %s: %v", opts.Config, err)
			}
			if got.Test != "go test" || got.MinSpeedup != 7.5 || got.Timeout != jobspec.Duration(90*time.Second) ||
				got.BaseCommit != "b" || got.Slots != 3 || got.Artifacts != opts.Artifacts || !got.Daemon ||
				len(got.Env) != 2 || got.Env[0] != "PATH" || got.Env[1] != "TOKEN" || got.Config != nil {
				t.Errorf("recorded %s, want the request's spec on 3 slots at b", opts.Config)
			}
		})
	}
}
