package proc

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// connectEnv makes this test binary, started by a test, try to connect to
// each unix socket its value names. The value is comma-separated, with "@"
// for an abstract socket. It prints "reached ADDR" for each that answers,
// then exits.
const connectEnv = "PROC_TEST_CONNECT"

func init() {
	addrs := os.Getenv(connectEnv)
	if addrs == "" {
		return
	}
	for _, a := range strings.Split(addrs, ",") {
		name := a
		if rest, ok := strings.CutPrefix(a, "@"); ok {
			name = "\x00" + rest
		}
		if c, err := net.DialTimeout("unix", name, 5*time.Second); err == nil {
			fmt.Println("reached", a)
			c.Close()
		}
	}
	os.Exit(0)
}

// TestSandbox_Sockets listens on a unix socket in an ordinary directory, on
// one in $XDG_RUNTIME_DIR and on an abstract one. Then it connects from this
// test binary. Unsandboxed it reaches all three (the control). Sandboxed, with
// each set of flags proc tries (with a user namespace and without), it reaches
// none. No Sandbox field names any of them.
func TestSandbox_Sockets(t *testing.T) {
	needSandbox(t)
	runtime := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	plain := filepath.Join(t.TempDir(), "p.sock")
	inRuntime := filepath.Join(runtime, "optimizer", "daemon.sock")
	os.MkdirAll(filepath.Dir(inRuntime), 0o700)
	abstract := fmt.Sprintf("@optimizer-proc-test-%d", os.Getpid())
	for _, a := range []string{plain, inRuntime, abstract} {
		name := a
		if rest, ok := strings.CutPrefix(a, "@"); ok {
			name = "\x00" + rest
		}
		ln, err := net.Listen("unix", name)
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
	}
	addrs := []string{plain, inRuntime, abstract}
	// The sandbox hides /tmp, where go test may have built this binary.
	exeDir := filepath.Dir(os.Args[0])
	reached := func(t *testing.T, box *Sandbox) []string {
		t.Helper()
		if box != nil {
			box.ReadOnly = append(box.ReadOnly, exeDir)
		}
		res, err := Run(t.Context(), Cmd{Args: []string{os.Args[0]}, Env: []string{connectEnv + "=" + strings.Join(addrs, ",")},
			CPU: -1, Timeout: time.Minute, Sandbox: box})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("exit %d (%v):\n%s", res.ExitCode, err, res.Output)
		}
		var got []string
		for line := range strings.SplitSeq(string(res.Output), "\n") {
			if a, ok := strings.CutPrefix(line, "reached "); ok {
				got = append(got, a)
			}
		}
		return got
	}
	if got := reached(t, nil); !slices.Equal(got, addrs) {
		t.Fatalf("unsandboxed, the test reached %q, want all of %q", got, addrs)
	}
	real := probeSandbox()
	saved := probeSandbox
	defer func() { probeSandbox = saved }()
	for _, flags := range [][]string{slices.Concat(bwrapFlags, userFlags), bwrapFlags} {
		t.Run(strings.Join(flags, " "), func(t *testing.T) {
			if reason := tryBwrap(real.path, flags); reason != "" {
				t.Skipf("bwrap does not work here with these flags: %s", reason)
			}
			probeSandbox = func() sandboxProbe { p := real; p.flags = flags; return p }
			if got := reached(t, &Sandbox{}); len(got) > 0 {
				t.Errorf("sandboxed, the test reached %q", got)
			}
			// With Net the network namespace is the host's: abstract
			// sockets are reachable, path sockets still are not.
			if got := reached(t, &Sandbox{Net: true}); !slices.Equal(got, []string{abstract}) {
				t.Errorf("sandboxed with Net, the test reached %q, want only %q", got, abstract)
			}
		})
	}
}
