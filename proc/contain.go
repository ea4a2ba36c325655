package proc

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ContainEnv names the environment variable that chooses how Run contains
// an unsandboxed run. "cgroup" is the default where cgroup v2 is writable,
// "reaper" is a subreaper of the run's own, and "group" is its process
// group alone. Tests set it to try each way on one machine.
const ContainEnv = "OPTIMIZER_CONTAIN"

// peakEnv names the variable that asks the run's wrapper for the peak
// resident memory of the run's processes, written to the file descriptor
// it names ([Cmd.PeakRSS]).
const peakEnv = "OPTIMIZER_REAPER_RSS"

// The ways of containment, as Result.Containment names them.
const (
	ContainCgroup = "cgroup" // a cgroup v2 per run, killed whole
	ContainReaper = "reaper" // a subreaper per run that kills every descendant
	ContainGroup  = "group"  // the process group only: a setsid escapes
)

// guard contains one run: every process it starts, even one that calls
// setsid with a clean environment, is killed when the run ends. See
// newGuard for how.
type guard interface {
	// wrap returns the argv to start in place of args.
	wrap(args []string, dir string) ([]string, error)
	// prepare sets up cmd before its start.
	prepare(cmd *exec.Cmd)
	// kill kills every process of the run; pid and p are the leader's.
	kill(pid int, p *os.Process)
	// close kills whatever is left, and reports whether the run is proven
	// to have left nothing running.
	close(pid int, p *os.Process) bool
	// name is the Result's Containment.
	name() string
}

// groupGuard kills the process group alone: a process that calls setsid
// escapes it. Run falls back to it where neither a cgroup nor a subreaper
// can be had.
type groupGuard struct{}

func (groupGuard) wrap(args []string, _ string) ([]string, error) { return args, nil }
func (groupGuard) prepare(*exec.Cmd)                              {}
func (groupGuard) kill(pid int, p *os.Process)                    { killGroup(pid, p) }
func (groupGuard) close(pid int, p *os.Process) bool              { killGroup(pid, p); return false }
func (groupGuard) name() string                                   { return ContainGroup }

// resolve finds args[0] as exec would. Then a wrapped command that does not
// exist fails to start, as an unwrapped one does, instead of running a
// wrapper that then fails.
func resolve(name, dir string) (string, error) {
	if !strings.Contains(name, "/") {
		return exec.LookPath(name)
	}
	p := name
	if !filepath.IsAbs(p) && dir != "" {
		p = filepath.Join(dir, p)
	}
	fi, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return "", &os.PathError{Op: "exec", Path: name, Err: os.ErrPermission}
	}
	return name, nil
}
