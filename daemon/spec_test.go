package daemon

import (
	"encoding/json"
	"testing"

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/jobspec"
)

// TestJobSpec_Config: the configuration a job records is the client's own
// object, else the request's options, with the base, slots and artifacts
// added. A client's "config": null is no configuration, not a crash of
// the daemon's scheduler; what is no object is an error.
func TestJobSpec_Config(t *testing.T) {
	for _, tt := range []struct {
		name, config string
		want         map[string]any
	}{
		{"Client", `{"test": "make", "min_speedup": 2.5}`, map[string]any{"test": "make", "min_speedup": 2.5}},
		{"None", ``, map[string]any{"test": "go test", "timeout": "1m0s"}},
		{"Null", `null`, map[string]any{"test": "go test", "timeout": "1m0s"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			spec := &jobSpec{Base: "b", Request: api.JobRequest{Options: jobspec.Spec{Test: "go test", Timeout: jobspec.Duration(60e9)}}}
			if tt.config != "" {
				spec.Request.Options.Config = json.RawMessage(tt.config)
			}
			b, err := spec.config(3, "/art")
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			tt.want["base_commit"], tt.want["slots"], tt.want["artifacts"], tt.want["daemon"] = "b", 3.0, "/art", true
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s = %v, want %v (config %s)", k, got[k], v, b)
				}
			}
		})
	}
	spec := &jobSpec{Request: api.JobRequest{Options: jobspec.Spec{Config: json.RawMessage(`[1]`)}}}
	if b, err := spec.config(1, "/art"); err == nil {
		t.Errorf("config of [1] = %s, want an error", b)
	}
}
