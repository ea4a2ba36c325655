package proc

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// survivorLine starts a process that leaves the run's group and session
// with a clean environment (no owner tag). The process writes its PID to
// pidFile and loops. The line waits until the PID is written and runs tail.
func survivorLine(pidFile, tail string) string {
	return `(env -i setsid sh -c 'echo $$ > ` + pidFile + `; while :; do sleep 0.05; done' > /dev/null 2>&1 &)
while [ ! -s ` + pidFile + ` ]; do sleep 0.01; done; ` + tail
}

// survivor reads the PID in pidFile and reports whether that process still
// runs (not a zombie), after waiting up to wait for it to end; it kills it
// either way.
func survivor(t *testing.T, pidFile string, wait time.Duration) bool {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the survivor never started: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid file: %q", b)
	}
	defer syscall.Kill(pid, syscall.SIGKILL)
	for deadline := time.Now().Add(wait); ; time.Sleep(20 * time.Millisecond) {
		if !liveProcess(pid) {
			return false
		}
		if time.Now().After(deadline) {
			return true
		}
	}
}

// liveProcess reports whether pid runs and is not a zombie.
func liveProcess(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// TestRun_Containment starts, in a run, a process that calls setsid with
// an empty environment, and ends the run by exiting and by a timeout. With
// a cgroup and with the subreaper, the process is dead when Run returns.
// With the process group alone (the attack's control) it survives.
func TestRun_Containment(t *testing.T) {
	if _, err := os.Stat("/usr/bin/setsid"); err != nil {
		if _, err := os.Stat("/bin/setsid"); err != nil {
			t.Skip("no setsid")
		}
	}
	modes := []string{ContainReaper, ContainGroup}
	if cgroupBase() != "" {
		modes = append(modes, ContainCgroup)
	} else {
		t.Log("no writable cgroup v2 here: the cgroup way is not tried")
	}
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) {
			t.Setenv(ContainEnv, mode)
			for _, end := range []string{"Exit", "Timeout"} {
				t.Run(end, func(t *testing.T) {
					pidFile := filepath.Join(t.TempDir(), "pid")
					c := Cmd{Args: Shell(survivorLine(pidFile, "exit 3")), Timeout: time.Minute, CPU: -1}
					if end == "Timeout" {
						c.Args, c.Timeout = Shell(survivorLine(pidFile, "sleep 300")), time.Second
					}
					res, err := Run(t.Context(), c)
					if err != nil {
						t.Fatal(err)
					}
					if res.Containment != mode {
						t.Errorf("Containment %q, want %q", res.Containment, mode)
					}
					if end == "Exit" && res.ExitCode != 3 {
						t.Errorf("exit %d, want 3\n%s", res.ExitCode, res.Output)
					}
					if end == "Timeout" && (!res.TimedOut || res.ExitCode != -1) {
						t.Errorf("timedOut %v exit %d, want a timeout", res.TimedOut, res.ExitCode)
					}
					// SIGKILL is asynchronous: a contained survivor gets time to
					// die; the control's loops forever, so is looked at once.
					want, wait := mode == ContainGroup, 10*time.Second
					if want {
						wait = 0
					}
					survived := survivor(t, pidFile, wait)
					if survived != want {
						t.Errorf("the setsid process survived the run: %v, want %v", survived, want)
					}
					if res.Contained == survived {
						t.Errorf("Contained %v, but the survivor survived: %v", res.Contained, survived)
					}
				})
			}
		})
	}
}

// TestRun_ReaperStatus: under the subreaper the command's exit status,
// output, death by a signal and start errors are what they are without it.
func TestRun_ReaperStatus(t *testing.T) {
	t.Setenv(ContainEnv, ContainReaper)
	res, err := Run(t.Context(), Cmd{Args: Shell("echo out; echo err >&2; exit 7"), CPU: -1})
	if err != nil || res.ExitCode != 7 || !strings.Contains(string(res.Output), "out") || !strings.Contains(string(res.Output), "err") {
		t.Errorf("exit %d (%v), output %q; want 7 and both lines", res.ExitCode, err, res.Output)
	}
	res, err = Run(t.Context(), Cmd{Args: Shell("kill -9 $$"), CPU: -1})
	if err != nil || res.ExitCode != -1 {
		t.Errorf("killed by a signal: exit %d (%v), want -1", res.ExitCode, err)
	}
	if _, err := Run(t.Context(), Cmd{Args: []string{filepath.Join(t.TempDir(), "missing")}, CPU: -1}); err == nil {
		t.Error("a missing command started")
	}
	res, err = Run(t.Context(), Cmd{Args: Shell("env"), CPU: -1})
	if err != nil || strings.Contains(string(res.Output), reaperEnv) {
		t.Errorf("the command sees %s (%v):\n%s", reaperEnv, err, res.Output)
	}
}

// TestKillOrphans_StaleCgroup: a run's cgroup whose optimizer is gone, with
// a process still in it, is killed and removed.
func TestKillOrphans_StaleCgroup(t *testing.T) {
	base := cgroupBase()
	if base == "" {
		t.Skip("no writable cgroup v2 here")
	}
	dir := filepath.Join(base, cgroupPrefix+"1.1-1") // no optimizer is PID 1 started at tick 1
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { killCgroup(dir); os.Remove(dir) })
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command("sleep", "300")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, UseCgroupFD: true, CgroupFD: int(f.Fd())}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if n := KillOrphans(); n == 0 {
		t.Error("KillOrphans found nothing")
	}
	cmd.Wait()
	if cmd.ProcessState == nil || cmd.ProcessState.Exited() {
		t.Errorf("the process in the stale cgroup was not killed: %v", cmd.ProcessState)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Error("the stale cgroup is still there")
	}
}
