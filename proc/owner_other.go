//go:build !linux

package proc

// startTime is not known outside Linux: identities are PIDs alone.
func startTime(int) string { return "" }

// KillOrphans finds nothing outside Linux, where there is no /proc to read
// the tags from. It returns 0.
func KillOrphans() int { return 0 }

// KillTagged finds nothing outside Linux, where there is no /proc to read
// environments from. It returns 0; process groups are still killed as they
// end.
func KillTagged(name, value string) int { return 0 }
