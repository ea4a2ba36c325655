package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/proc"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// hostile is a candidate whose test attacks the machine, and a check of
// whether the attack did harm. A test script exits 1 when it saw from inside
// that its attack worked, and 0 otherwise. It exits 3 when its own
// precondition failed, so that a script that could not even try never counts
// as stopped.
type hostile struct {
	name   string
	script string // {{REPO}} {{HOME}} {{PORT}} {{LOCK}} {{MARK}} are filled in
	harmed func(t *testing.T, h *hostileRun) bool
}

// hostileRun is one job of every hostile candidate, with or without the
// sandbox, and what the host saw.
type hostileRun struct {
	repo, home, lock, mark string
	rep                    jsonReport
	accepted               int
	stash, config          string // the repo's stash list and config before the job
}

// insideSaw reports whether the candidate's script exited 1: it saw its
// attack work. Exit 3 (or any other failure) fails the test.
func (h *hostileRun) insideSaw(t *testing.T, name string) bool {
	for _, c := range h.rep.Candidates {
		if c.Name != name {
			continue
		}
		if c.Verdict == "passed" {
			return false
		}
		if c.Failure != nil && strings.Contains(c.Failure.Message, "exits 1 ") {
			return true
		}
		t.Fatalf("%s: verdict %s (%+v): the script could not make its attack", name, c.Verdict, c.Failure)
	}
	t.Fatalf("no candidate %s in the report", name)
	return false
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// hostiles are the attacks of issue 21, one candidate each. A plain setsid
// double fork is not here. Unsandboxed, the pool's hunt for processes
// tagged with the slot kills it when the slot is reset. So it does no harm
// a job can see. In proc, TestSandbox_NoSurvivor shows the sandbox kills
// it.
var hostiles = []hostile{
	{"WriteRepoAbsolute", `echo pwned > {{REPO}}/planted-abs`,
		func(t *testing.T, h *hostileRun) bool { return fileExists(filepath.Join(h.repo, "planted-abs")) }},
	{"WriteRepoDotDot", `echo pwned > ../../../../planted-dotdot`, // slot: <repo>/.git/optimizer/slots/<slot>
		func(t *testing.T, h *hostileRun) bool { return fileExists(filepath.Join(h.repo, "planted-dotdot")) }},
	{"HomeDecoyWriteDelete", `echo pwned > {{HOME}}/decoy/planted; rm -f {{HOME}}/decoy/keep`,
		func(t *testing.T, h *hostileRun) bool {
			return fileExists(filepath.Join(h.home, "decoy", "planted")) || !fileExists(filepath.Join(h.home, "decoy", "keep"))
		}},
	{"HomeSecretRead", `grep -q hunter2 {{HOME}}/secret.txt && exit 1; exit 0`,
		func(t *testing.T, h *hostileRun) bool { return h.insideSaw(t, "HomeSecretRead") }},
	{"ConnectHostLoopback", `command -v bash >/dev/null || exit 3
bash -c 'exec 3<>/dev/tcp/127.0.0.1/{{PORT}}' 2>/dev/null && exit 1; exit 0`,
		func(t *testing.T, h *hostileRun) bool { return h.accepted > 0 || h.insideSaw(t, "ConnectHostLoopback") }},
	{"EnvClearedEscape", `(env -i setsid sh -c 'echo > up-envi; sleep 300; : {{MARK}}-envi' > /dev/null 2>&1 &)
` + waitUp("up-envi"),
		func(t *testing.T, h *hostileRun) bool { return survivors(h.mark + "-envi") }},
	{"ReadStore", `head -c 15 {{REPO}}/.git/optimizer/optimizer.db 2>/dev/null | grep -q SQLite && exit 1; exit 0`,
		func(t *testing.T, h *hostileRun) bool { return h.insideSaw(t, "ReadStore") }},
	{"ReadOtherSlot", `for d in ../*/; do [ "$d" = "../$(basename "$PWD")/" ] && continue; [ -f "$d/test.sh" ] && exit 1; done; exit 0`,
		func(t *testing.T, h *hostileRun) bool { return h.insideSaw(t, "ReadOtherSlot") }},
	{"WriteGitHooks", `hooks=$(git rev-parse --git-path hooks) || exit 3
printf '#!/bin/sh\necho pwned\n' > "$hooks/post-checkout"; printf x > "$(git rev-parse --absolute-git-dir)/planted"`,
		func(t *testing.T, h *hostileRun) bool {
			slots, _ := filepath.Glob(filepath.Join(h.repo, ".git", "worktrees", "*", "planted"))
			return fileExists(filepath.Join(h.repo, ".git", "hooks", "post-checkout")) || len(slots) > 0
		}},
	{"GoModReplaceOutside", `mkdir -p y && printf 'module example.com/y\n\ngo 1.21\n' > y/go.mod && echo 'package y' > y/y.go
printf 'module m\n\ngo 1.21\n\nrequire (\n\texample.com/x v0.0.0\n\texample.com/y v0.0.0\n)\n\nreplace example.com/x => {{HOME}}/x\n\nreplace example.com/y => ./y\n' > go.mod
GOFLAGS=-mod=mod go list example.com/y >/dev/null || exit 3 # a replace inside the slot works
GOFLAGS=-mod=mod go list example.com/x >/dev/null 2>&1 && exit 1; exit 0`,
		func(t *testing.T, h *hostileRun) bool { return h.insideSaw(t, "GoModReplaceOutside") }},
	{"GitConfigBranchTagStash", `git config user.name hacked; git branch hacked; git tag hacked; echo x >> notes.txt; git stash -q; exit 0`,
		func(t *testing.T, h *hostileRun) bool {
			refs := git(t, h.repo, "for-each-ref", "--format=%(refname)")
			return strings.Contains(refs, "hacked") || git(t, h.repo, "stash", "list") != h.stash ||
				readFile(filepath.Join(h.repo, ".git", "config")) != h.config
		}},
	{"HoldMachineLock", `command -v flock >/dev/null || exit 3
(env -i setsid flock -s {{LOCK}} sh -c 'echo > up-lock; sleep 300; : {{MARK}}-lock' > /dev/null 2>&1 &)
` + waitUp("up-lock"),
		func(t *testing.T, h *hostileRun) bool {
			f, err := os.Open(h.lock)
			if err != nil {
				return false
			}
			defer f.Close()
			return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil
		}},
	{"RewriteKeptArtifact", `for f in {{REPO}}/.git/optimizer/artifacts/*/candidates/*.json; do
  [ -f "$f" ] && sed -i 's/evaluated/never evaluated/' "$f"
done; exit 0`,
		func(t *testing.T, h *hostileRun) bool {
			kept, _ := filepath.Glob(filepath.Join(h.repo, ".git", "optimizer", "artifacts", h.rep.Job, "candidates", "*.json"))
			for _, f := range kept {
				if s := readFile(f); strings.Contains(s, `"good"`) && strings.Contains(s, "never evaluated") {
					return true
				}
			}
			return false
		}},
}

// waitUp is script text that waits, up to 10 s, for a background process
// to create file in the slot, and exits 3 if it never does. The script must
// not end, and have its process group killed, before its attack is in place.
func waitUp(file string) string {
	return `i=0; while [ ! -e ` + file + ` ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i+1)); done; [ -e ` + file + ` ] || exit 3`
}

func readFile(p string) string { b, _ := os.ReadFile(p); return string(b) }

// survivors reports whether a process whose command line has mark runs,
// and kills it.
func survivors(mark string) bool {
	found := false
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		if b, err := os.ReadFile(filepath.Join(d, "cmdline")); err == nil && strings.Contains(string(b), mark) {
			if pid, err := strconv.Atoi(filepath.Base(d)); err == nil && pid != os.Getpid() {
				syscall.Kill(pid, syscall.SIGKILL)
				found = true
			}
		}
	}
	return found
}

// TestSandbox_Hostile runs every hostile candidate in one job without the
// sandbox, where each must do its harm, so each check can fail. It runs
// them again in one job with the sandbox, where none may. A benign
// candidate's kept change must apply as evaluated, or be refused: never
// apply altered.
func TestSandbox_Hostile(t *testing.T) {
	testenv.Once(t)
	if err := proc.SandboxAvailable(); err != nil {
		t.Skipf("%v: install the %s package (.ci/run does)", err, proc.SandboxPackage)
	}
	for _, mode := range []string{"off", "on"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "off" {
				// The control, where every attack must work: without the
				// cgroup or subreaper, which kill setsid survivors even
				// unsandboxed (TestSurvivorPoisoning).
				t.Setenv(proc.ContainEnv, proc.ContainGroup)
			}
			h := runHostile(t, mode)
			for _, c := range hostiles {
				t.Run(c.name, func(t *testing.T) {
					if got, want := c.harmed(t, h), mode == "off"; got != want {
						t.Errorf("--sandbox %s: harm done %v, want %v", mode, got, want)
					}
				})
			}
			survivors(h.mark) // whatever is left of this mode's attacks
			checkApplied(t, h)
		})
	}
}

// runHostile makes a fresh repository, home and machine lock, and runs one
// job of every hostile candidate plus a benign one.
func runHostile(t *testing.T, mode string) *hostileRun {
	repo, _ := newShellRepo(t, 0)
	h := &hostileRun{repo: repo, home: t.TempDir(), mark: fmt.Sprintf("optimizer-hostile-%d-%s", time.Now().UnixNano(), mode)}
	t.Setenv("HOME", h.home)
	t.Setenv("TMPDIR", t.TempDir()) // this job's own machine lock
	h.lock = worktreepool.DefaultMachineLock()
	os.MkdirAll(filepath.Join(h.home, "decoy"), 0o755)
	os.WriteFile(filepath.Join(h.home, "decoy", "keep"), []byte("keep\n"), 0o644)
	os.WriteFile(filepath.Join(h.home, "secret.txt"), []byte("hunter2\n"), 0o600)
	os.MkdirAll(filepath.Join(h.home, "x"), 0o755)
	os.WriteFile(filepath.Join(h.home, "x", "go.mod"), []byte("module example.com/x\n\ngo 1.21\n"), 0o644)
	os.WriteFile(filepath.Join(h.home, "x", "x.go"), []byte("package x\n"), 0o644)
	h.stash = git(t, repo, "stash", "list")
	h.config = readFile(filepath.Join(repo, ".git", "config"))

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan int)
	go func() {
		n := 0
		defer func() { accepted <- n }()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
			n++
		}
	}()

	fill := strings.NewReplacer("{{REPO}}", repo, "{{HOME}}", h.home, "{{PORT}}", strconv.Itoa(ln.Addr().(*net.TCPAddr).Port),
		"{{LOCK}}", h.lock, "{{MARK}}", h.mark)
	var lines []string
	for _, c := range hostiles {
		b, _ := json.Marshal(map[string]any{"name": c.name, "files": map[string]string{"test.sh": fill.Replace(c.script) + "\n"}})
		lines = append(lines, string(b))
	}
	lines = append(lines, `{"name": "good", "files": {"notes.txt": "evaluated\n"}}`)
	cands := filepath.Join(t.TempDir(), "hostile.jsonl")
	os.WriteFile(cands, []byte(strings.Join(lines, "\n")+"\n"), 0o644)

	out := runOK(t, exitOK, "--repo", repo, "--candidates", cands, "-j", "3", "--format", "json",
		"--test", "sh test.sh", "--bench", "none", "--timeout", "2m", "--sandbox", mode)
	ln.Close()
	h.accepted = <-accepted
	h.rep = decodeJSONReport(t, out)
	var sb struct {
		Sandbox *struct {
			Active bool `json:"active"`
		} `json:"sandbox"`
	}
	json.Unmarshal([]byte(out), &sb)
	if sb.Sandbox == nil || sb.Sandbox.Active != (mode == "on") {
		t.Fatalf("--sandbox %s: the report says %+v", mode, sb.Sandbox)
	}
	return h
}

// checkApplied applies the benign candidate: with its kept change intact it
// must apply as evaluated; altered, apply must refuse and change nothing.
func checkApplied(t *testing.T, h *hostileRun) {
	t.Helper()
	cmd := exec.Command("git", "checkout", "-q", "--", "notes.txt")
	cmd.Dir = h.repo
	cmd.Run() // the stash attack, off sandbox, may have left notes.txt alone or not
	before := readFile(filepath.Join(h.repo, "notes.txt"))
	var stdout, stderr strings.Builder
	err := run(t.Context(), []string{"apply", "--repo", h.repo, h.rep.Job, "good"}, &stdout, &stderr)
	got := readFile(filepath.Join(h.repo, "notes.txt"))
	switch {
	case strings.Contains(got, "never"):
		t.Errorf("apply installed the altered change: notes.txt is %q", got)
	case err == nil && got != "evaluated\n":
		t.Errorf("apply succeeded but notes.txt is %q", got)
	case err != nil && got != before:
		t.Errorf("a refused apply changed notes.txt to %q", got)
	case err != nil && !strings.Contains(err.Error(), "not what job") && !strings.Contains(err.Error(), "seal does not match"):
		t.Errorf("apply failed for another reason: %v\n%s", err, stderr.String())
	}
}
