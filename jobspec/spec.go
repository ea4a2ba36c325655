// Package jobspec holds Spec, the one description of a job's settings. The
// CLI makes one from its flags and optimizer.toml, and it goes to the
// daemon as a request's options. The evaluator's options are made from it
// (evaluator.OptionsOf), in this process and on the daemon alike. Each
// quantity has one unit here: the threshold in percent, as --min-speedup
// takes it; durations as Go durations; memory in bytes.
package jobspec

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"time"
)

// DefaultMinSpeedup is the threshold, in percent, of a Spec whose
// MinSpeedup is zero: faster means at least 5% faster.
const DefaultMinSpeedup = 5.0

// Spec is a job's settings: the options of a daemon's job request. Its
// JSON form is the API's (openapi.json, JobOptions).
type Spec struct {
	Test                string   `json:"test,omitempty"`
	TestReports         []string `json:"test_reports,omitempty"`
	Bench               string   `json:"bench,omitempty"` // "none" skips the benchmark phase
	BenchFormat         string   `json:"bench_format,omitempty"`
	BenchReports        []string `json:"bench_reports,omitempty"`
	Setup               string   `json:"setup,omitempty"`
	CopyFiles           []string `json:"copy_files,omitempty"` // relative to the repository root
	Timeout             Duration `json:"timeout,omitempty"`
	MinSpeedup          float64  `json:"min_speedup,omitempty"` // percent: 5 is 5%
	MinPairs            int      `json:"min_pairs,omitempty"`
	MaxPairs            int      `json:"max_pairs,omitempty"`
	BenchBudget         Duration `json:"bench_budget,omitempty"`
	Metric              string   `json:"metric,omitempty"` // wall, cpu, rss, allocs or bytes
	BenchFilter         string   `json:"bench_filter,omitempty"`
	BenchArgs           []string `json:"bench_args,omitempty"`
	BuildFlags          []string `json:"build_flags,omitempty"`
	NoPin               bool     `json:"no_pin,omitempty"`
	MemLimit            int64    `json:"mem_limit,omitempty"` // bytes per process; 0 is none
	Sandbox             string   `json:"sandbox,omitempty"`   // auto, on, off
	SandboxNet          bool     `json:"sandbox_net,omitempty"`
	NoiseCheck          bool     `json:"noise_check,omitempty"`
	All                 bool     `json:"all,omitempty"`
	TrustCandidateTests bool     `json:"trust_candidate_tests,omitempty"`
	NoCache             bool     `json:"no_cache,omitempty"` // reuse nothing from earlier jobs (the result cache)
	Quick               bool     `json:"quick,omitempty"`    // a first look a later job refines: the budget may stop a benchmark before any claim
	NoProfile           bool     `json:"no_profile,omitempty"`
	ProfileCmd          string   `json:"profile_cmd,omitempty"`
	Parallel            int      `json:"parallel,omitempty"` // most slots this job may hold; 0 is the daemon's budget
	// Env is set for the job's test, bench and setup commands: the client's
	// values of DefaultEnv and of what --env adds. The daemon drops a
	// DefaultEnv name its policy does not allow, and refuses another.
	Env map[string]string `json:"env,omitempty"`
	// Config is read and ignored: older clients send their own
	// configuration here. The store records the spec itself (Record).
	//
	// Deprecated: a client sets nothing here; a daemon ignores it.
	Config json.RawMessage `json:"config,omitempty"`
}

// Duration is a time.Duration whose JSON form is a Go duration string,
// such as "90s" or "1m30s".
type Duration time.Duration

// MarshalJSON writes d as time.Duration's String does.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON reads a positive Go duration string (ParseDuration). A
// value that is none is a *json.UnmarshalTypeError whose Value is the JSON
// value, so that the decoder names the field.
func (d *Duration) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return &json.UnmarshalTypeError{Value: string(b), Type: reflect.TypeFor[Duration]()}
	}
	v, err := ParseDuration(s)
	if err != nil {
		return &json.UnmarshalTypeError{Value: strconv.Quote(s), Type: reflect.TypeFor[Duration]()}
	}
	*d = v
	return nil
}

// ParseDuration reads a positive Go duration, such as "90s" or "10m".
func ParseDuration(s string) (Duration, error) {
	v, err := time.ParseDuration(s)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("%q is no positive duration (say 90s or 10m)", s)
	}
	return Duration(v), nil
}
