package proc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// How Run contains a run on Linux, best first:
//
//   - a cgroup v2 of the run's own, where this process may make one beside
//     it. The run starts in it (clone3 CLONE_INTO_CGROUP), so nothing it
//     starts can leave, and cgroup.kill ends every process in it at once.
//   - else a subreaper. Run starts this very executable as a small wrapper
//     (reaperEnv) that marks itself PR_SET_CHILD_SUBREAPER. Every orphan of
//     the run, setsid or not, then becomes its child rather than init's.
//     When the command ends, the wrapper kills every descendant it finds in
//     /proc, reaps them, and exits with the command's status.
//
// A sandboxed run is in bwrap's PID namespace, which dies with the command.
// It gets a cgroup too where there is one, but no wrapper: bwrap is its own
// subreaper.

// reaperEnv tells this executable, started by Run, to act as a run's
// subreaper ("run") or to exit at once ("probe"). It is removed from the
// command's environment.
const reaperEnv = "OPTIMIZER_REAPER"

func init() {
	switch os.Getenv(reaperEnv) {
	case "probe":
		os.Exit(0)
	case "run":
		reaperMain()
	}
}

// newGuard chooses how to contain one run, as ContainEnv says or, by
// default, the best way this machine allows.
func newGuard(sandboxed bool) guard {
	switch containment(sandboxed) {
	case ContainCgroup:
		if g, err := newCgroupGuard(); err == nil {
			return g
		}
		if sandboxed {
			return groupGuard{}
		}
		return reaperGuard{self: selfExe()}
	case ContainReaper:
		return reaperGuard{self: selfExe()}
	}
	return groupGuard{}
}

// containment is the way newGuard chooses. A sandboxed run never gets the
// wrapper: bwrap's PID namespace contains it, and its fd 3 must reach it.
func containment(sandboxed bool) string {
	mode := os.Getenv(ContainEnv)
	switch {
	case mode == ContainGroup:
		return ContainGroup
	case mode != ContainReaper && cgroupBase() != "":
		return ContainCgroup
	case sandboxed || selfExe() == "":
		return ContainGroup
	}
	return ContainReaper
}

// Containment says how Run contains an unsandboxed run here: ContainCgroup,
// ContainReaper or ContainGroup, as ContainEnv and the machine allow.
func Containment() string { return containment(false) }

// selfExe is this executable's path, for the wrapper, or "" when it cannot
// be found.
var selfExe = sync.OnceValue(func() string {
	p, err := os.Executable()
	if err != nil {
		return ""
	}
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
})

// cgroupBase is the directory of this process's own cgroup v2, where Run
// makes each run's cgroup. It is "" where that does not work: no cgroup v2,
// not writable, or a run cannot be started into a cgroup made there.
var cgroupBase = sync.OnceValue(func() string {
	dir := ownCgroup()
	if dir == "" {
		return ""
	}
	probe := filepath.Join(dir, cgroupPrefix+"probe-"+strconv.Itoa(os.Getpid()))
	if err := os.Mkdir(probe, 0o755); err != nil {
		return ""
	}
	defer os.Remove(probe)
	f, err := os.Open(probe)
	if err != nil {
		return ""
	}
	defer f.Close()
	self := selfExe()
	if self == "" {
		return ""
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), reaperEnv+"=probe")
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: int(f.Fd())}
	if err := cmd.Run(); err != nil {
		return ""
	}
	if _, err := os.Stat(filepath.Join(probe, "cgroup.kill")); err != nil {
		return "" // before Linux 5.14: no way to kill a cgroup whole
	}
	return dir
})

// cgroupPrefix starts the name of every cgroup Run makes.
const cgroupPrefix = "optimizer-run-"

// ownCgroup is the path of this process's cgroup v2 directory, found from
// /proc/self/cgroup and the cgroup2 mount, or "".
func ownCgroup() string {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	var rel string
	found := false
	for line := range strings.SplitSeq(string(b), "\n") {
		if r, ok := strings.CutPrefix(line, "0::"); ok {
			rel, found = r, true
		}
	}
	if !found {
		return ""
	}
	mi, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer mi.Close()
	sc := bufio.NewScanner(mi)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok || !strings.HasPrefix(post, "cgroup2 ") {
			continue
		}
		f := strings.Fields(pre)
		if len(f) < 5 || f[3] != "/" {
			continue
		}
		return filepath.Join(f[4], rel)
	}
	return ""
}

// runSeq numbers the cgroups of this process.
var runSeq atomic.Int64

// cgroupGuard contains a run in a cgroup of its own.
type cgroupGuard struct {
	dir string
	f   *os.File
}

func newCgroupGuard() (*cgroupGuard, error) {
	base := cgroupBase()
	if base == "" {
		return nil, errors.New("no writable cgroup v2")
	}
	dir := filepath.Join(base, fmt.Sprintf("%s%s-%d", cgroupPrefix, strings.TrimPrefix(ownerTag(), OwnerEnv+"="), runSeq.Add(1)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.Open(dir)
	if err != nil {
		os.Remove(dir)
		return nil, err
	}
	return &cgroupGuard{dir: dir, f: f}, nil
}

func (g *cgroupGuard) wrap(args []string, _ string) ([]string, error) { return args, nil }

func (g *cgroupGuard) prepare(cmd *exec.Cmd) {
	cmd.SysProcAttr.UseCgroupFD = true
	cmd.SysProcAttr.CgroupFD = int(g.f.Fd())
}

func (g *cgroupGuard) kill(pid int, p *os.Process) {
	killGroup(pid, p)
	killCgroup(g.dir)
}

func (g *cgroupGuard) close(pid int, p *os.Process) bool {
	if pid > 0 {
		killGroup(pid, p)
	}
	emptied := killCgroup(g.dir)
	g.f.Close()
	for range 50 {
		if err := os.Remove(g.dir); err == nil || errors.Is(err, os.ErrNotExist) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	return emptied
}

func (g *cgroupGuard) name() string { return ContainCgroup }

// killCgroup kills every process in the cgroup dir and waits, up to two
// seconds, until it is empty. It reports whether it emptied.
func killCgroup(dir string) bool {
	os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0)
	for deadline := time.Now().Add(2 * time.Second); ; {
		b, err := os.ReadFile(filepath.Join(dir, "cgroup.events"))
		if err != nil {
			return errors.Is(err, os.ErrNotExist)
		}
		if bytes.Contains(b, []byte("populated 0")) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0)
		time.Sleep(5 * time.Millisecond)
	}
}

// killStaleCgroups kills and removes the cgroups of Run's that optimizers
// no longer running left behind. It returns how many it removed.
func killStaleCgroups() int {
	base := ownCgroup()
	if base == "" {
		return 0
	}
	entries, err := os.ReadDir(base)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		id, ok := strings.CutPrefix(e.Name(), cgroupPrefix)
		if !ok || !e.IsDir() || strings.HasPrefix(id, "probe-") {
			continue
		}
		if i := strings.LastIndexByte(id, '-'); i > 0 && !ownerAlive(id[:i]) {
			dir := filepath.Join(base, e.Name())
			killCgroup(dir)
			if os.Remove(dir) == nil {
				n++
			}
		}
	}
	return n
}

// reaperGuard contains a run under a wrapper that is its subreaper.
type reaperGuard struct{ self string }

func (g reaperGuard) wrap(args []string, dir string) ([]string, error) {
	path, err := resolve(args[0], dir)
	if err != nil {
		return nil, err
	}
	return append([]string{g.self, path}, args...), nil
}

func (reaperGuard) prepare(cmd *exec.Cmd) { cmd.Env = append(cmd.Env, reaperEnv+"=run") }

// kill kills the wrapper's descendants, then the wrapper: while it lives,
// every orphan of the run is its child, so none is missed.
func (reaperGuard) kill(pid int, p *os.Process) {
	killTree(pid, false)
	killGroup(pid, p)
}

// close has nothing left to do: the wrapper killed every descendant before
// it exited, or kill did before it killed the wrapper.
func (reaperGuard) close(pid int, p *os.Process) bool { killGroup(pid, p); return true }

func (reaperGuard) name() string { return ContainReaper }

// reaperMain is the wrapper: os.Args are this executable, the command's
// path, then the command's argv. It never returns.
func reaperMain() {
	os.Unsetenv(reaperEnv)
	peak := peakReport()
	if peak != nil {
		// The command starts with this process's resident pages (vfork),
		// its peak from this one's: make both as small as they can be.
		debug.FreeOSMemory()
		os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	}
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "optimizer: the run's wrapper was started without a command")
		os.Exit(127)
	}
	unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	// A signal that would end the wrapper ends the run first: the wrapper
	// must not die and leave the run's orphans to init.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	child, err := os.StartProcess(os.Args[1], os.Args[2:], &os.ProcAttr{Files: []*os.File{os.Stdin, os.Stdout, os.Stderr}})
	if err != nil {
		fmt.Fprintf(os.Stderr, "optimizer: start %s: %v\n", os.Args[2], err)
		os.Exit(127)
	}
	go func() {
		<-sigs
		killTree(os.Getpid(), false)
	}()
	var status syscall.WaitStatus
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			break
		}
		if pid == child.Pid {
			status = ws
			break
		}
	}
	killTree(os.Getpid(), true)
	for {
		_, err := syscall.Wait4(-1, nil, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			break
		}
	}
	if peak != nil {
		// Every process of the run was this wrapper's child or orphan,
		// and all are reaped: the largest of their peaks.
		var ru unix.Rusage
		if unix.Getrusage(unix.RUSAGE_CHILDREN, &ru) == nil {
			fmt.Fprintf(peak, "rss %d\n", ru.Maxrss*1024)
		}
		peak.Close()
	}
	if status.Signaled() {
		// Exit as the command did, by a signal; which one does not
		// matter to Run (exit code -1 either way), and SIGKILL cannot be
		// caught by the runtime.
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	os.Exit(status.ExitStatus())
}

// peakReport is the file the wrapper writes the run's peak memory to, or
// nil when none was asked for. It is closed on exec, so that the command
// cannot write a line of its own there.
func peakReport() *os.File {
	v := os.Getenv(peakEnv)
	os.Unsetenv(peakEnv)
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 {
		return nil
	}
	syscall.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), "peak")
}

// peakWrap returns args under the wrapper, and the environment the wrapper
// needs. The wrapper reports the peak resident memory of every process of
// the run on file descriptor fd. ok is false when this executable cannot be
// found.
func peakWrap(args []string, dir string, fd int) (wrapped, env []string, ok bool, err error) {
	self := selfExe()
	if self == "" {
		return args, nil, false, nil
	}
	path, err := resolve(args[0], dir)
	if err != nil {
		return nil, nil, false, err
	}
	env = []string{reaperEnv + "=run", peakEnv + "=" + strconv.Itoa(fd)}
	return append([]string{self, path}, args...), env, true, nil
}

// killTree kills every live descendant of root (not root itself), found in
// /proc, round after round until none is left. A process forked between a
// round's scan and its kills is found by the next. With reap, the caller is
// root and reaps the dead as it goes. It gives up after five seconds, and
// reports whether it found none left.
func killTree(root int, reap bool) bool {
	for deadline := time.Now().Add(5 * time.Second); ; {
		if reap {
			for {
				pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
				if pid <= 0 || err != nil {
					break
				}
			}
		}
		live := descendants(root)
		if len(live) == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		for _, p := range live {
			syscall.Kill(p, syscall.SIGKILL)
		}
		time.Sleep(time.Millisecond)
	}
}

// descendants lists the live (not zombie) descendants of root, from /proc.
func descendants(root int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	dead := map[int]bool{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		children[ppid] = append(children[ppid], pid)
		if f[0] == "Z" || f[0] == "X" {
			dead[pid] = true
		}
	}
	var out []int
	queue := []int{root}
	seen := map[int]bool{root: true}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			if seen[c] {
				continue
			}
			seen[c] = true
			queue = append(queue, c)
			if !dead[c] {
				out = append(out, c)
			}
		}
	}
	return out
}
