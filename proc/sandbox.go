package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// SandboxPackage names the package that provides bwrap, for messages that
// tell the user what to install.
const SandboxPackage = "bubblewrap"

var (
	// ErrNoSandbox is returned, wrapped with the reason, when bwrap is not
	// installed or does not work here.
	ErrNoSandbox = errors.New("no sandbox: bwrap (package " + SandboxPackage + ") is not installed or does not work here")
)

// Sandbox says what a sandboxed process may see and change. Run wraps the
// command line in bwrap (bubblewrap) when [Cmd.Sandbox] is set:
//
//   - the whole file system is mounted read-only (--ro-bind / /), with a
//     fresh /dev and /proc and an empty private /tmp;
//   - each of Hidden is replaced by an empty, private tmpfs, so that what is
//     under it on the host is neither readable nor writable;
//   - ReadOnly and Writable are then bound back, at the same paths, read-only
//     or writable. They may lie under a hidden directory (the slot under the
//     user's .git, the build cache under $HOME).
//   - the user's sockets are hidden whatever Hidden says. /run/user and
//     $XDG_RUNTIME_DIR are replaced by an empty tmpfs. Every unix socket
//     bound to a path on the host (/proc/net/unix) that would still be seen
//     is covered by /dev/null. So connect finds nothing to talk to: a
//     read-only mount does not stop connect.
//   - every namespace is unshared (user where it can be, IPC, PID, network,
//     UTS, cgroup). The process sees no other process, and no network but
//     its own loopback unless Net is set. Without Net, abstract unix
//     sockets, which belong to a network namespace, are out of reach too.
//   - it runs in a new session, with every capability dropped, and dies with
//     its parent. When the command exits or is killed, the PID namespace's
//     init goes, and the kernel kills everything the command started,
//     double-forked or not.
//
// Paths are absolute. One that does not exist is skipped. A Sandbox is not
// changed by Run and may be shared by concurrent runs.
type Sandbox struct {
	Hidden   []string // replaced by an empty tmpfs
	ReadOnly []string // bound read-only, after Hidden
	Writable []string // bound writable, after Hidden
	Env      []string // KEY=VALUE set inside, after the inherited environment
	Net      bool     // share the host's network instead of a private loopback
}

// bwrapFlags are the flags every sandbox gets; userFlags are added where the
// kernel lets bwrap make a user namespace. As root, --unshare-user maps root
// to root but, with --cap-drop ALL, without any capability: root inside can
// write only where a mount is writable, whoever owns the files.
var (
	bwrapFlags = []string{"--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"}
	userFlags  = []string{"--unshare-user", "--disable-userns"}
)

// sandboxProbe is what SandboxAvailable found, once per process.
type sandboxProbe struct {
	path  string
	flags []string
	shell string // runs cpuScript: bash where there is one, for its finer times
	err   error
}

// probeSandbox finds bwrap and the flags that work here, once. Tests replace
// it.
var probeSandbox = sync.OnceValue(func() sandboxProbe {
	path, err := exec.LookPath("bwrap")
	if err != nil {
		return sandboxProbe{err: fmt.Errorf("%w: %v", ErrNoSandbox, err)}
	}
	var reasons []string
	for _, flags := range [][]string{slices.Concat(bwrapFlags, userFlags), bwrapFlags} {
		reason := tryBwrap(path, flags)
		if reason == "" {
			shell := "sh"
			if bash, err := exec.LookPath("bash"); err == nil {
				shell = bash
			}
			return sandboxProbe{path: path, flags: flags, shell: shell}
		}
		reasons = append(reasons, reason)
	}
	return sandboxProbe{err: fmt.Errorf("%w: %s", ErrNoSandbox, strings.Join(reasons, "; "))}
})

// tryBwrap runs true in a sandbox with flags, and returns "" when it worked
// or what bwrap said. As Run does, it tries setupAttempts times before it
// believes a failure. Otherwise a mount changing on the host as bwrap copies
// the mount table would leave the whole process without a sandbox, or with
// the flags of the second choice.
func tryBwrap(path string, flags []string) string {
	var reason string
	for range setupAttempts {
		if reason = tryBwrapOnce(path, flags); reason == "" {
			break
		}
	}
	return reason
}

func tryBwrapOnce(path string, flags []string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	args := slices.Concat(flags, []string{"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--", "true"})
	cmd := exec.CommandContext(ctx, path, args...)
	Tag(cmd)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(out.String()); msg != "" {
			return msg
		}
		return err.Error()
	}
	return ""
}

// SandboxAvailable returns nil when Run can sandbox a process: bwrap is
// installed and works here. Otherwise the error, which wraps ErrNoSandbox,
// says why. The answer is found once and kept.
func SandboxAvailable() error { return probeSandbox().err }

// sandboxArgs returns args wrapped in bwrap as s says, starting in dir.
func sandboxArgs(s *Sandbox, dir string, args []string) ([]string, error) {
	p := probeSandbox()
	if p.err != nil {
		return nil, p.err
	}
	out := slices.Concat([]string{p.path}, p.flags)
	if s.Net {
		out = append(out, "--share-net")
	}
	out = append(out, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp")
	hidden := existing(slices.Concat(s.Hidden, runtimeDirs()), true)
	for _, h := range hidden {
		out = append(out, "--tmpfs", h)
	}
	type bind struct {
		path string
		flag string
	}
	var binds []bind
	for _, r := range existing(s.ReadOnly, false) {
		binds = append(binds, bind{r, "--ro-bind"})
	}
	for _, w := range existing(s.Writable, false) {
		binds = append(binds, bind{w, "--bind"})
	}
	// A parent before its children, so that no bind covers a deeper one.
	slices.SortStableFunc(binds, func(a, b bind) int { return depth(a.path) - depth(b.path) })
	for _, b := range binds {
		out = append(out, b.flag, b.path, b.path)
	}
	// Last, so that no bind above shows one again.
	for _, sock := range hostSockets(hidden) {
		out = append(out, "--ro-bind", os.DevNull, sock)
	}
	out = append(out, "--setenv", "TMPDIR", "/tmp")
	for _, kv := range s.Env {
		k, v, _ := strings.Cut(kv, "=")
		out = append(out, "--setenv", k, v)
	}
	if dir != "" {
		d, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		out = append(out, "--chdir", d)
	}
	return append(append(out, "--", p.shell, "-c", cpuScript, "sh"), args...), nil
}

// cpuScript runs the command inside the sandbox and writes to fd 3, which
// the command itself does not get (so it cannot forge either):
//
//   - first a line "+", which says that bwrap set the sandbox up and the
//     command is starting (startedMark);
//   - then its CPU time. Since bwrap reports its child's exit status
//     without reaping it, the rusage of a sandboxed run never reaches Run.
//     This shell's times line for its children is the CPU time instead. It
//     is to the millisecond with bash (from getrusage), and in clock ticks
//     (10 ms) with dash.
const cpuScript = `echo + >&3; "$@" 3>&-; s=$?; times >&3; exit $s`

// startedMark is cpuScript's first line on fd 3.
const startedMark = "+\n"

// sandboxReport reads what cpuScript wrote to fd 3: whether the command
// started, and its CPU time when it finished.
func sandboxReport(b []byte) (started bool, cpu time.Duration, cpuOK bool) {
	rest, started := bytes.CutPrefix(b, []byte(startedMark))
	if !started {
		return false, 0, false
	}
	cpu, cpuOK = parseTimes(rest)
	return true, cpu, cpuOK
}

// setupFailed says whether a sandboxed run failed in bwrap's own set-up,
// before the command started. Then bwrap exits 1 with its own "bwrap: "
// message and cpuScript never wrote its mark. A mount that changes on the
// host while bwrap copies the mount table does this. One case is a tmpfs
// unmounted as bwrap remounted it read-only: "Can't bind mount /oldroot/ on
// /newroot/: Unable to apply mount flags: remount …: Invalid argument". The
// command never ran, so Run runs it again.
func setupFailed(res Result, started bool) bool {
	return res.Sandboxed && !started && !res.TimedOut && !res.Canceled && res.ExitCode == 1 &&
		bytes.HasPrefix(res.Output, []byte("bwrap: "))
}

// parseTimes reads the CPU time of children from the output of sh's times:
// the second line, "0m1.250000s 0m0.010000s" (user, then system).
func parseTimes(b []byte) (time.Duration, bool) {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 {
		return 0, false
	}
	var total time.Duration
	f := strings.Fields(lines[1])
	if len(f) != 2 {
		return 0, false
	}
	for _, v := range f {
		m, sec, ok := strings.Cut(strings.TrimSuffix(v, "s"), "m")
		if !ok {
			return 0, false
		}
		mins, err1 := strconv.Atoi(m)
		secs, err2 := strconv.ParseFloat(sec, 64)
		if err1 != nil || err2 != nil {
			return 0, false
		}
		total += time.Duration(mins)*time.Minute + time.Duration(secs*float64(time.Second))
	}
	return total, true
}

// existing returns the paths that exist, symlinks resolved (bwrap mounts at
// a real path), without duplicates; with dirsOnly, only directories.
func existing(paths []string, dirsOnly bool) []string {
	var out []string
	for _, p := range paths {
		if p == "" || !filepath.IsAbs(p) {
			continue
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue
		}
		fi, err := os.Stat(real)
		if err != nil || (dirsOnly && (!fi.IsDir() || real == "/")) || slices.Contains(out, real) {
			continue
		}
		out = append(out, real)
	}
	slices.SortStableFunc(out, func(a, b string) int { return depth(a) - depth(b) })
	return out
}

func depth(p string) int { return strings.Count(filepath.Clean(p), string(filepath.Separator)) }

// runtimeDirs are the directories of the user's sessions that every sandbox
// hides. Their sockets (the session bus, systemd's, the optimizer daemon's)
// would let a candidate act as the user outside the sandbox.
func runtimeDirs() []string {
	dirs := []string{"/run/user", "/var/run/user"}
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		dirs = append(dirs, d)
	}
	return dirs
}

// hostSockets lists the unix sockets bound to a path on the host, from
// /proc/net/unix, that a sandbox would still show. It skips those under
// /tmp, /dev or /proc, which the sandbox makes afresh, and those under
// hidden. Each is a socket now, its symlinks resolved.
func hostSockets(hidden []string) []string {
	b, err := os.ReadFile("/proc/net/unix")
	if err != nil {
		return nil
	}
	covered := append([]string{"/tmp", "/dev", "/proc"}, hidden...)
	var out []string
	for line := range strings.SplitSeq(string(b), "\n") {
		// Num RefCount Protocol Flags Type St Inode Path
		f := strings.Fields(line)
		if len(f) < 8 || !strings.HasPrefix(f[7], "/") {
			continue // the header, unbound or abstract sockets
		}
		p, err := filepath.EvalSymlinks(strings.Join(f[7:], " "))
		if err != nil || slices.Contains(out, p) || under(p, covered) {
			continue
		}
		if fi, err := os.Lstat(p); err == nil && fi.Mode().Type() == os.ModeSocket {
			out = append(out, p)
		}
	}
	return out
}

// under reports whether p is one of dirs or lies under one.
func under(p string, dirs []string) bool {
	for _, d := range dirs {
		if p == d || strings.HasPrefix(p, strings.TrimSuffix(d, "/")+"/") {
			return true
		}
	}
	return false
}
