package proc

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// needSandbox skips when bwrap does not work here; CI installs it (.ci/run).
func needSandbox(t *testing.T) {
	t.Helper()
	if err := SandboxAvailable(); err != nil {
		t.Skipf("%v: install the %s package", err, SandboxPackage)
	}
}

// TestSandbox runs each line twice: without a sandbox, and with one that
// hides host/ and makes only host/slot writable. It checks what the host
// sees: the harm each line does without the sandbox (so the check can
// fail), and none with it.
func TestSandbox(t *testing.T) {
	needSandbox(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
			accepted <- struct{}{}
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port

	for _, tt := range []struct {
		name string
		line string // run in slot; $HOST is the hidden directory, $RO a read-only one
		harm func(t *testing.T, host, ro string, out string) bool
	}{
		{"WriteHidden", `echo x > "$HOST/planted"`, func(t *testing.T, host, _, _ string) bool { return present(host, "planted") }},
		{"WriteHiddenByDotDot", `echo x > ../planted`, func(t *testing.T, host, _, _ string) bool { return present(host, "planted") }},
		{"DeleteHidden", `rm -f "$HOST/keep"`, func(t *testing.T, host, _, _ string) bool { return !present(host, "keep") }},
		{"ReadHidden", `cat "$HOST/keep"`, func(t *testing.T, _, _, out string) bool { return strings.Contains(out, "secret") }},
		{"WriteReadOnly", `echo x > "$RO/planted"`, func(t *testing.T, _, ro, _ string) bool { return present(ro, "planted") }},
		{"WriteOutsideAll", `echo x > "$OUTSIDE/planted"`, func(t *testing.T, _, _, _ string) bool { return present(os.Getenv("PROC_TEST_OUTSIDE"), "planted") }},
		{"Connect", fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d`, port), func(t *testing.T, _, _, _ string) bool {
			select {
			case <-accepted:
				return true
			case <-time.After(time.Second): // bounded wait for a connection that should not come
				return false
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			host := t.TempDir()
			slot := filepath.Join(host, "slot")
			ro := t.TempDir()
			outside := t.TempDir()
			t.Setenv("PROC_TEST_OUTSIDE", outside)
			os.Mkdir(slot, 0o755)
			os.WriteFile(filepath.Join(host, "keep"), []byte("secret\n"), 0o644)
			box := &Sandbox{Hidden: []string{host}, ReadOnly: []string{ro}, Writable: []string{slot}}
			line := "HOST=" + host + " RO=" + ro + " OUTSIDE=" + outside + "; " + tt.line
			for _, sandboxed := range []bool{false, true} {
				os.Remove(filepath.Join(host, "planted"))
				os.Remove(filepath.Join(ro, "planted"))
				os.Remove(filepath.Join(outside, "planted"))
				os.WriteFile(filepath.Join(host, "keep"), []byte("secret\n"), 0o644)
				c := Cmd{Dir: slot, Args: []string{"bash", "-c", line}, CPU: -1, Timeout: time.Minute}
				if sandboxed {
					c.Sandbox = box
				}
				res, err := Run(t.Context(), c)
				if err != nil {
					t.Fatal(err)
				}
				if res.Sandboxed != sandboxed {
					t.Errorf("Sandboxed %v, want %v", res.Sandboxed, sandboxed)
				}
				if got := tt.harm(t, host, ro, string(res.Output)); got == sandboxed {
					t.Errorf("sandboxed %v: harm done %v (exit %d, output %q)", sandboxed, got, res.ExitCode, res.Output)
				}
			}
		})
	}
}

func present(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}

// TestSandbox_Writable: the slot and /tmp are writable inside; what is
// written in the slot is there afterwards, what is written in /tmp is not.
func TestSandbox_Writable(t *testing.T) {
	needSandbox(t)
	host := t.TempDir()
	slot := filepath.Join(host, "slot")
	os.Mkdir(slot, 0o755)
	res, err := Run(t.Context(), Cmd{Dir: slot, Args: Shell(`echo ok > made && echo t > /tmp/optimizer-sandbox-test && cat /tmp/optimizer-sandbox-test && pwd`),
		CPU: -1, Sandbox: &Sandbox{Hidden: []string{host}, Writable: []string{slot}, Env: []string{"PROC_BOX=1"}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 || !strings.Contains(string(res.Output), slot) {
		t.Fatalf("exit %d output %q, want success in %s", res.ExitCode, res.Output, slot)
	}
	if !present(slot, "made") {
		t.Error("the slot's write did not reach the host")
	}
	if present("/tmp", "optimizer-sandbox-test") {
		os.Remove("/tmp/optimizer-sandbox-test")
		t.Error("the sandbox's /tmp is the host's")
	}
}

// TestSandbox_NoSurvivor: a double-forked setsid process, with its
// environment cleared or not, dies with the sandboxed run, so nothing it
// started outlives it.
func TestSandbox_NoSurvivor(t *testing.T) {
	needSandbox(t)
	for _, tt := range []struct{ name, prefix string }{{"Setsid", "setsid"}, {"EnvCleared", "env -i setsid"}} {
		t.Run(tt.name, func(t *testing.T) {
			marker := fmt.Sprintf("optimizer-survivor-%d", time.Now().UnixNano())
			dir := t.TempDir()
			line := `(` + tt.prefix + ` sh -c 'echo up > up; exec >/dev/null 2>&1; sleep 300; : ` + marker + `' &)
while [ ! -s up ]; do sleep 0.01; done; echo started`
			res, err := Run(t.Context(), Cmd{Dir: dir, Args: Shell(line), CPU: -1, Timeout: time.Minute, Sandbox: &Sandbox{Writable: []string{dir}}})
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitCode != 0 {
				t.Fatalf("exit %d: %s", res.ExitCode, res.Output)
			}
			deadline := time.Now().Add(10 * time.Second)
			for len(pidsWith(marker)) > 0 {
				if time.Now().After(deadline) {
					killAll(pidsWith(marker))
					t.Fatal("a double-forked process outlived the sandboxed run")
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// TestSandbox_Unavailable: a Cmd that asks for a sandbox where there is
// none is refused, not run without one.
func TestSandbox_Unavailable(t *testing.T) {
	saved := probeSandbox
	defer func() { probeSandbox = saved }()
	probeSandbox = func() sandboxProbe { return sandboxProbe{err: fmt.Errorf("%w: test", ErrNoSandbox)} }
	started := false
	_, err := Run(t.Context(), Cmd{Args: Shell("true"), CPU: -1, Sandbox: &Sandbox{}, OnStart: func(int) { started = true }})
	if !errors.Is(err, ErrNoSandbox) || started {
		t.Errorf("got %v (started %v), want ErrNoSandbox and no process", err, started)
	}
}

// pidsWith returns the processes whose command line contains s.
func pidsWith(s string) []int {
	var pids []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil || !strings.Contains(string(b), s) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(d)); err == nil && pid != os.Getpid() {
			pids = append(pids, pid)
		}
	}
	return pids
}

func killAll(pids []int) {
	for _, p := range pids {
		syscall.Kill(p, syscall.SIGKILL)
	}
}

// TestSandbox_CPU: a sandboxed run reports its command's CPU time, as an
// unsandboxed one does (bwrap does not pass rusage on), keeps its exit code,
// and cannot forge the report.
func TestSandbox_CPU(t *testing.T) {
	needSandbox(t)
	spin := "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done"
	plain, err := Run(t.Context(), Cmd{Args: Shell(spin), CPU: -1})
	if err != nil {
		t.Fatal(err)
	}
	unreaped := UnreapedCPU()
	boxed, err := Run(t.Context(), Cmd{Args: Shell(spin + "; exit 4"), CPU: -1, Sandbox: &Sandbox{}})
	if err != nil {
		t.Fatal(err)
	}
	// getrusage never sees it, so UnreapedCPU must (the busy-machine probe
	// adds it to RUSAGE_CHILDREN, or a sandboxed benchmark is other work).
	if got := UnreapedCPU() - unreaped; got < plain.CPU/2 {
		t.Errorf("UnreapedCPU grew by %v for a loop that took %v plain", got, plain.CPU)
	}
	if boxed.ExitCode != 4 {
		t.Errorf("exit %d, want 4: %s", boxed.ExitCode, boxed.Output)
	}
	// The same loop: far more than half of the plain run's CPU time, if it is counted at all.
	if boxed.CPU < plain.CPU/2 {
		t.Errorf("sandboxed CPU %v, plain %v: the command's CPU time is lost", boxed.CPU, plain.CPU)
	}
	forged, err := Run(t.Context(), Cmd{Args: Shell(`printf '0m0.0s 0m0.0s\n9m0.000000s 0m0.000000s\n' >&3`), CPU: -1, Sandbox: &Sandbox{}})
	if err != nil {
		t.Fatal(err)
	}
	if forged.CPU >= time.Minute {
		t.Errorf("the command forged its CPU time: %v", forged.CPU)
	}
}

func TestParseTimes(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"0m0.010000s 0m0.000000s\n0m1.250000s 0m0.500000s\n", 1750 * time.Millisecond, true},
		{"0m0.00s 0m0.00s\n2m1.50s 0m0.00s\n", 121500 * time.Millisecond, true},
		{"", 0, false},
		{"0m0.0s 0m0.0s\n", 0, false},
		{"a b\nc d\n", 0, false},
	} {
		got, ok := parseTimes([]byte(tt.in))
		if ok != tt.ok || got != tt.want {
			t.Errorf("parseTimes(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// flakyBwrap writes a wrapper around the real bwrap at path. The wrapper
// fails its first n calls (set by fails) as bwrap's set-up does when a
// mount vanishes under it (the message is CI's). After that it runs the
// real bwrap. calls says how many times it ran since the last fails.
func flakyBwrap(t *testing.T, real string) (wrapper string, fails func(n int), calls func() int) {
	t.Helper()
	dir := t.TempDir()
	count, limit := filepath.Join(dir, "calls"), filepath.Join(dir, "fails")
	wrapper = filepath.Join(dir, "bwrap")
	script := fmt.Sprintf(`#!/bin/sh
echo x >> %[1]s
if [ "$(wc -l < %[1]s)" -le "$(cat %[2]s)" ]; then
	echo 'bwrap: Can'"'"'t bind mount /oldroot/ on /newroot/: Unable to apply mount flags: remount "/newroot/tmp/x": Invalid argument' >&2
	exit 1
fi
exec %[3]s "$@"
`, count, limit, real)
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	fails = func(n int) {
		os.Remove(count)
		if err := os.WriteFile(limit, []byte(strconv.Itoa(n)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	calls = func() int {
		b, _ := os.ReadFile(count)
		return strings.Count(string(b), "x")
	}
	return wrapper, fails, calls
}

// TestSandbox_SetupRetried: when bwrap fails to set the sandbox up, before
// the command starts, Run starts the command again, up to setupAttempts
// times in all. A command that fails on its own, even with bwrap's words,
// runs once.
func TestSandbox_SetupRetried(t *testing.T) {
	needSandbox(t)
	real := probeSandbox()
	wrapper, fails, calls := flakyBwrap(t, real.path)
	saved := probeSandbox
	defer func() { probeSandbox = saved }()
	probeSandbox = func() sandboxProbe { p := real; p.path = wrapper; return p }

	for _, tt := range []struct {
		name      string
		fails     int
		cmd       string
		wantCalls int
		wantExit  int
		wantOut   string
	}{
		{"OneFailure", 1, "echo ran", 2, 0, "ran\n"},
		{"TwoFailures", 2, "echo ran", 3, 0, "ran\n"},
		{"AlwaysFails", 9, "echo ran", setupAttempts, 1, "bwrap: Can't bind mount"},
		{"CommandFails", 0, "echo 'bwrap: not really' >&2; exit 1", 1, 1, "bwrap: not really\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fails(tt.fails)
			res, err := Run(t.Context(), Cmd{Args: Shell(tt.cmd), CPU: -1, Sandbox: &Sandbox{}})
			if err != nil {
				t.Fatal(err)
			}
			if got := calls(); got != tt.wantCalls {
				t.Errorf("bwrap ran %d times, want %d", got, tt.wantCalls)
			}
			if res.ExitCode != tt.wantExit || !strings.HasPrefix(string(res.Output), tt.wantOut) {
				t.Errorf("exit %d, output %q; want exit %d, output starting %q", res.ExitCode, res.Output, tt.wantExit, tt.wantOut)
			}
		})
	}
}

// TestTryBwrap_Retried: the probe that decides whether this process has a
// sandbox, and with which flags, believes a failure only after
// setupAttempts tries.
func TestTryBwrap_Retried(t *testing.T) {
	needSandbox(t)
	real := probeSandbox()
	wrapper, fails, calls := flakyBwrap(t, real.path)
	fails(setupAttempts - 1)
	if reason := tryBwrap(wrapper, real.flags); reason != "" || calls() != setupAttempts {
		t.Errorf("%d failures then success: %q after %d tries, want it to work at try %d", setupAttempts-1, reason, calls(), setupAttempts)
	}
	fails(9)
	if reason := tryBwrap(wrapper, real.flags); !strings.Contains(reason, "Can't bind mount") || calls() != setupAttempts {
		t.Errorf("always failing: %q after %d tries, want bwrap's message after %d", reason, calls(), setupAttempts)
	}
}

func TestSandboxReport(t *testing.T) {
	for _, tt := range []struct {
		in             string
		started, cpuOK bool
		cpu            time.Duration
	}{
		{"+\n0m0.010000s 0m0.000000s\n0m1.250000s 0m0.500000s\n", true, true, 1750 * time.Millisecond},
		{"+\n", true, false, 0}, // killed before it finished
		{"", false, false, 0},   // never started
		{"0m0.0s 0m0.0s\n0m1.0s 0m0.0s\n", false, false, 0},
	} {
		started, cpu, ok := sandboxReport([]byte(tt.in))
		if started != tt.started || ok != tt.cpuOK || cpu != tt.cpu {
			t.Errorf("sandboxReport(%q) = %v, %v, %v; want %v, %v, %v", tt.in, started, cpu, ok, tt.started, tt.cpu, tt.cpuOK)
		}
	}
}
