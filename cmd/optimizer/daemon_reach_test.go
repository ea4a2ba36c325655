package main

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/client"
	"github.com/optimizer-dev/optimizer/daemon"
	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/proc"
)

// reachDaemon is a candidate's non-test file whose init runs inside the
// test binary. It looks for the daemon's socket where the client would
// (under /run/user and $XDG_RUNTIME_DIR), at the path it was told, and for
// an abstract socket. It POSTs a job to each it reaches, tries to read the
// daemon's queue, and fails the test when anything worked.
const reachDaemon = `package p

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
)

func init() {
	paths, _ := filepath.Glob("/run/user/*/optimizer/daemon.sock")
	paths = append(paths, filepath.Join(os.Getenv("XDG_RUNTIME_DIR"), "optimizer", "daemon.sock"), "{{SOCK}}", "@{{ABSTRACT}}")
	var reached []string
	for _, p := range paths {
		addr := p
		if p[0] == '@' {
			addr = "\x00" + p[1:]
		}
		c, err := net.Dial("unix", addr)
		if err != nil {
			continue
		}
		c.Close()
		reached = append(reached, p)
		hc := http.Client{Transport: &http.Transport{DialContext: func(context.Context, string, string) (net.Conn, error) {
			return net.Dial("unix", addr)
		}}}
		if resp, err := hc.Post("http://optimizer/v1/jobs", "application/json", bytes.NewReader([]byte(` + "`{{JOB}}`" + `))); err == nil {
			resp.Body.Close()
		}
	}
	if _, err := os.ReadFile("{{STATE}}/daemon.db"); err == nil {
		reached = append(reached, "{{STATE}}/daemon.db")
	}
	if len(reached) > 0 {
		fmt.Fprintln(os.Stderr, "REACHED", reached)
		os.Exit(1)
	}
}
`

// TestSandbox_DaemonUnreachable runs a real daemon on the default socket of
// a private $XDG_RUNTIME_DIR, and an abstract socket. Then a job runs
// in-process whose candidate's init (reachDaemon) tries to queue a job
// through them. Without the sandbox it reaches them and queues one (the
// control); with it, it reaches nothing and the daemon's queue stays empty.
func TestSandbox_DaemonUnreachable(t *testing.T) {
	testenv.Once(t)
	if err := proc.SandboxAvailable(); err != nil {
		t.Skipf("%v: install the %s package (.ci/run does)", err, proc.SandboxPackage)
	}
	for _, mode := range []string{"off", "on"} {
		t.Run(mode, func(t *testing.T) {
			base := t.TempDir()
			// TMPDIR, which every sandbox hides, is beside the runtime and
			// state directories, not above them.
			t.Setenv("TMPDIR", filepath.Join(base, "tmp"))
			t.Setenv("XDG_RUNTIME_DIR", filepath.Join(base, "run"))
			t.Setenv("XDG_STATE_HOME", filepath.Join(base, "state"))
			t.Setenv(client.SocketEnv, "")
			for _, d := range []string{"tmp", "run", "state"} {
				os.MkdirAll(filepath.Join(base, d), 0o700)
			}
			sock := client.DefaultSocket()
			state, err := daemon.DefaultStateDir()
			if err != nil {
				t.Fatal(err)
			}
			os.MkdirAll(filepath.Dir(sock), 0o700)
			startDaemonAt(t, sock, state, filepath.Join(base, "machine.lock"))

			abstract := "optimizer-reach-test-" + strings.ReplaceAll(t.Name(), "/", "-")
			ln, err := net.Listen("unix", "\x00"+abstract)
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

			repo := filepath.Join(base, "repo")
			writeFile(t, filepath.Join(repo, "go.mod"), "module m\n\ngo 1.21\n")
			writeFile(t, filepath.Join(repo, "p", "p.go"), "package p\n\n// F is one.\nfunc F() int { return 1 }\n")
			writeFile(t, filepath.Join(repo, "p", "p_test.go"), "package p\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) {\n\tif F() != 1 {\n\t\tt.Fatal(F())\n\t}\n}\n")
			git(t, repo, "init", "-q", "-b", "main")
			git(t, repo, "add", "-A")
			git(t, repo, "commit", "-q", "-m", "base")
			job, _ := json.Marshal(map[string]any{"repo": repo, "candidates": []any{map[string]any{"name": "planted", "files": map[string]string{"planted.txt": "x\n"}}},
				"options": map[string]any{"test": "true", "bench": "none"}})
			src := strings.NewReplacer("{{SOCK}}", sock, "{{ABSTRACT}}", abstract, "{{JOB}}", string(job), "{{STATE}}", state).Replace(reachDaemon)
			line, _ := json.Marshal(map[string]any{"name": "reach", "files": map[string]string{"p/evil.go": src}})
			cands := filepath.Join(base, "cands.jsonl")
			writeFile(t, cands, string(line)+"\n")

			out, _, code := runCLI(t, "--repo", repo, "--candidates", cands, "--test", "go test ./...", "--bench", "none",
				"--format", "json", "--no-daemon", "--no-cache", "--timeout", "3m", "--sandbox", mode)
			verdict := verdictsOf(t, out)["reach"]
			jobs, _, _ := runCLI(t, "jobs", "--all", "--socket", sock)
			queued := strings.TrimSpace(jobs) != "no jobs"
			if mode == "off" {
				if verdict != "failed" || !queued {
					t.Errorf("control, unsandboxed: verdict %q (exit %d), a job queued %v; want the attack to work\n%s\njobs: %s", verdict, code, queued, out, jobs)
				}
				return
			}
			if verdict != "passed" {
				t.Errorf("sandboxed, the candidate reached the daemon, its queue or a socket: verdict %q (exit %d)\n%s", verdict, code, out)
			}
			if queued {
				t.Errorf("sandboxed, a job was queued:\n%s", jobs)
			}
		})
	}
}

// startDaemonAt runs a daemon in this process on sock with its state in
// state until the test ends.
func startDaemonAt(t *testing.T, sock, state, lock string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	srv, err := daemon.New(ctx, daemon.Options{Socket: sock, StateDir: state, Slots: 2, CPUs: 2, MachineLock: lock,
		Ready: func() { close(ready) }})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("daemon: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("the daemon did not start in a minute")
	}
	t.Cleanup(func() {
		cancel()
		<-done
	})
}
