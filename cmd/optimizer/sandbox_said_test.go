package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/proc"
)

// TestRun_SandboxSaid: every report says whether candidates ran sandboxed,
// in the text header and in the JSON report's sandbox.kind, with the
// sandbox off and, where bwrap works, on.
func TestRun_SandboxSaid(t *testing.T) {
	repo, cands := newTinyRepo(t, "test \"$(cat ok)\" = yes\n", 1)
	modes := map[string]string{"off": "none"}
	if proc.SandboxAvailable() == nil {
		modes["on"] = "bwrap"
	}
	for mode, kind := range modes {
		t.Run(mode, func(t *testing.T) {
			args := []string{"--repo", repo, "--candidates", cands, "-j", "1", "--bench", "none", "--test", "sh test.sh",
				"--no-daemon", "--sandbox", mode}
			text := runOK(t, exitOK, args...)
			header, _, _ := strings.Cut(text, "\n\n")
			if !strings.Contains(header, "\nsandbox: "+kind) {
				t.Errorf("--sandbox %s: the header does not say sandbox: %s:\n%s", mode, kind, header)
			}
			if kind == "none" && !strings.Contains(header, "with your privileges") {
				t.Errorf("the header does not say candidates ran with the user's privileges:\n%s", header)
			}
			var rep struct {
				Sandbox struct {
					Kind        string `json:"kind"`
					Containment string `json:"containment"`
				} `json:"sandbox"`
			}
			out := runOK(t, exitOK, append(args, "--format", "json")...)
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			if rep.Sandbox.Kind != kind {
				t.Errorf("--sandbox %s: JSON sandbox.kind %q, want %q", mode, rep.Sandbox.Kind, kind)
			}
			if kind == "none" && rep.Sandbox.Containment != proc.Containment() {
				t.Errorf("JSON sandbox.containment %q, want %q", rep.Sandbox.Containment, proc.Containment())
			}
		})
	}
}

// TestSandbox_ShimStopsJob: a test command that is a shim under $HOME, as
// pyenv's python3 is, which execs a program elsewhere under $HOME, cannot
// start in the sandbox. The job stops before its tests with a message that
// names the sandbox and --sandbox-bind; with that bind, the job runs.
func TestSandbox_ShimStopsJob(t *testing.T) {
	if err := proc.SandboxAvailable(); err != nil {
		t.Skipf("%v: install the %s package (.ci/run does)", err, proc.SandboxPackage)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("TMPDIR", t.TempDir()) // beside $HOME, not above it
	writeFile(t, filepath.Join(home, ".tool", "libexec", "tool"), "#!/bin/sh\nexec sh \"$@\"\n")
	writeFile(t, filepath.Join(home, ".tool", "shims", "tool"), "#!/bin/sh\nexec \""+filepath.Join(home, ".tool", "libexec", "tool")+"\" \"$@\"\n")
	os.Chmod(filepath.Join(home, ".tool", "libexec", "tool"), 0o755)
	os.Chmod(filepath.Join(home, ".tool", "shims", "tool"), 0o755)
	t.Setenv("PATH", filepath.Join(home, ".tool", "shims")+string(os.PathListSeparator)+os.Getenv("PATH"))
	repo, cands := newTinyRepo(t, "test \"$(cat ok)\" = yes\n", 1)
	args := []string{"--repo", repo, "--candidates", cands, "-j", "1", "--bench", "none", "--test", "tool test.sh",
		"--no-daemon", "--sandbox", "on"}

	stdout, stderr, code := runCLI(t, args...)
	if code != exitError || !strings.Contains(stderr, "sandbox") || !strings.Contains(stderr, "--sandbox-bind "+filepath.Join(home, ".tool")) {
		t.Errorf("exit %d; want %d and a message naming the sandbox and --sandbox-bind %s:\n%s\n%s",
			code, exitError, filepath.Join(home, ".tool"), stderr, stdout)
	}
	out := runOK(t, exitOK, append(args, "--sandbox-bind", filepath.Join(home, ".tool"))...)
	if !strings.Contains(out, "sandbox: bwrap") || !strings.Contains(out, "passed") {
		t.Errorf("with --sandbox-bind the job should run sandboxed and pass:\n%s", out)
	}
}

// benchDataRepo is a Go module whose one benchmark needs a data directory,
// given with -datadir, and skips without it, as many real ones do.
func benchDataRepo(t *testing.T) (repo, cands string) {
	t.Helper()
	dir := t.TempDir()
	repo = filepath.Join(dir, "repo")
	writeFile(t, filepath.Join(repo, "go.mod"), "module m\n\ngo 1.22\n")
	writeFile(t, filepath.Join(repo, "p", "p.go"), "package p\n\n// Sum adds up b.\nfunc Sum(b []byte) (n int) {\n\tfor _, c := range b {\n\t\tn += int(c)\n\t}\n\treturn n\n}\n")
	writeFile(t, filepath.Join(repo, "p", "p_test.go"), `package p

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var dataDir = flag.String("datadir", "", "the benchmark's data")

func TestSum(t *testing.T) {
	if Sum([]byte{1, 2}) != 3 {
		t.Fatal("sum")
	}
}

func BenchmarkSum(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(*dataDir, "data"))
	if err != nil {
		b.Skip("no data: ", err)
	}
	for range b.N {
		Sum(data)
	}
}
`)
	git(t, repo, "init", "-q", "-b", "main")
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "base")
	cands = filepath.Join(dir, "cands")
	writeFile(t, filepath.Join(cands, "readme", "README"), "a candidate that changes nothing measured\n")
	writeFile(t, filepath.Join(cands, "comment", "p", "p.go"), "package p\n\n// Sum adds up the bytes of b.\nfunc Sum(b []byte) (n int) {\n\tfor _, c := range b {\n\t\tn += int(c)\n\t}\n\treturn n\n}\n")
	return repo, cands
}

// TestBench_DataDirAndAllSkipped: a --bench-arg data directory under
// $TMPDIR, which the sandbox hides, is shown read-only inside. So the
// benchmark is measured sandboxed. A job whose benchmarks all skip (no data
// directory at all) fails with a message, not a pass.
func TestBench_DataDirAndAllSkipped(t *testing.T) {
	testenv.Once(t)
	if err := proc.SandboxAvailable(); err != nil {
		t.Skipf("%v: install the %s package (.ci/run does)", err, proc.SandboxPackage)
	}
	repo, cands := benchDataRepo(t)
	data := t.TempDir() // under $TMPDIR
	writeFile(t, filepath.Join(data, "data"), strings.Repeat("x", 4096))
	base := []string{"--repo", repo, "--candidates", cands, "-j", "1", "--no-daemon", "--no-cache", "--no-profile",
		"--min-pairs", "3", "--max-pairs", "4", "--sandbox", "on", "--format", "json"}

	out := runOK(t, exitOK, append(base, "--bench-arg", "-datadir="+data)...)
	var rep struct {
		Candidates []struct {
			Name       string `json:"name"`
			Benchmarks []any  `json:"benchmarks"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	measured := false
	for _, c := range rep.Candidates {
		if c.Name == "comment" && len(c.Benchmarks) > 0 {
			measured = true
		}
	}
	if !measured {
		t.Errorf("the benchmark with a data directory under $TMPDIR was not measured in the sandbox:\n%s", out)
	}

	stdout, stderr, code := runCLI(t, append(base, "--bench-arg", "-datadir="+filepath.Join(data, "missing"))...)
	if code == exitOK || !strings.Contains(stderr+stdout, "every benchmark skipped") {
		t.Errorf("all benchmarks skipped: exit %d, want a failure that says so:\n%s\n%s", code, stderr, stdout)
	}
}
