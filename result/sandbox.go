package result

// SandboxReport is the report's account of the sandbox.
type SandboxReport struct {
	Active bool   `json:"active"`
	Net    bool   `json:"net,omitempty"`  // tests could reach the network
	Note   string `json:"note,omitempty"` // why it is not active
}
