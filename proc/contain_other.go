//go:build !linux

package proc

// newGuard has only the process group to offer outside Linux: a process
// that calls setsid outlives the run.
func newGuard(bool) guard { return groupGuard{} }

// Containment says how Run contains an unsandboxed run: outside Linux, by
// its process group alone (ContainGroup).
func Containment() string { return ContainGroup }

func killStaleCgroups() int { return 0 }

// peakWrap has no wrapper to offer outside Linux: a sandboxed run's peak
// memory is not measured there (and there is no sandbox there either).
func peakWrap(args []string, _ string, _ int) ([]string, []string, bool, error) {
	return args, nil, false, nil
}
