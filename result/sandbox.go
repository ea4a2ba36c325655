package result

// SandboxReport is the report's account of the sandbox.
type SandboxReport struct {
	Active bool `json:"active"`
	// Kind is what candidates ran in: "bwrap", or "none" when they ran
	// with the user's privileges. Every report of a job says it.
	Kind string `json:"kind,omitempty"`
	// Containment is how every process of a run was killed at its end
	// outside bwrap: "cgroup", "reaper" or "group" (see proc.Containment).
	Containment string `json:"containment,omitempty"`
	Net         bool   `json:"net,omitempty"`  // tests could reach the network
	Note        string `json:"note,omitempty"` // why it is not active
}

// The kinds of sandbox, as SandboxReport.Kind names them.
const (
	SandboxBwrap = "bwrap"
	SandboxNone  = "none"
)
