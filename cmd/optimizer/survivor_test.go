package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/proc"
)

// fastSum and slowSum are p.go at base and as the survivor rewrites it:
// the same function, a hundred times the work.
const (
	fastSum = "package p\n\n// Sum adds 0..n-1. FAST\nfunc Sum(n int) (s int) {\n\tfor i := range n {\n\t\ts += i\n\t}\n\treturn s\n}\n"
	slowSum = "package p\n\n// Sum adds 0..n-1. SLOW\nfunc Sum(n int) (s int) {\n\tfor range 100 {\n\t\ts = 0\n\t\tfor i := range n {\n\t\t\ts += i\n\t\t}\n\t}\n\treturn s\n}\n"
)

// survivorInit is the hostile candidate's non-test file. Its init runs in
// every test and benchmark binary of the package. It starts a process that
// leaves the run's process group and session with a clean environment. For
// as long as it lives, that process rewrites p.go in place to the slow
// version in every slot but the README-only candidate's, and to the fast
// one there. Base measured slow makes the README-only candidate, which
// changes nothing, look faster.
const survivorInit = `package p

import (
	"os"
	"os/exec"
	"path/filepath"
)

func init() {
	wd, _ := os.Getwd()
	slots := filepath.Dir(filepath.Dir(wd)) // <slots>/<slot>/p
	loop := ` + "`" + `while :; do
  for d in "$SLOTS"/*/; do
    f="$d/p/p.go"
    [ -f "$f" ] || continue
    if [ -e "$d/README" ]; then
      grep -q SLOW "$f" && printf '%s' "$FAST" > "$f"
    else
      grep -q FAST "$f" && printf '%s' "$SLOW" > "$f"
    fi
  done
  sleep 0.02
done` + "`" + `
	cmd := exec.Command("sh", "-c", "(env -i SLOTS=\"$SLOTS\" SLOW=\"$SLOW\" FAST=\"$FAST\" setsid sh -c \"$LOOP\" >/dev/null 2>&1 &)")
	cmd.Env = append(os.Environ(), "SLOTS="+slots, "SLOW="+{{SLOW}}, "FAST="+{{FAST}}, "LOOP="+loop)
	cmd.Run()
}
`

// TestSurvivorPoisoning is issue 33's attack on the benchmarks. A hostile
// candidate's code leaves a survivor that keeps rewriting its sibling slots,
// and a README-only candidate would then be reported faster. With the
// process group alone killed (the control) the attack works. With the
// containment Run has (a cgroup or a subreaper), the README-only candidate
// is not-faster at -j 1, 2 and 4, and so it is with bwrap at -j 2.
func TestSurvivorPoisoning(t *testing.T) {
	testenv.Once(t)
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	writeFile(t, filepath.Join(repo, "go.mod"), "module m\n\ngo 1.22\n")
	writeFile(t, filepath.Join(repo, "p", "p.go"), fastSum)
	writeFile(t, filepath.Join(repo, "p", "p_test.go"), `package p

import "testing"

func TestSum(t *testing.T) {
	if Sum(4) != 6 {
		t.Fatal(Sum(4))
	}
}

func BenchmarkSum(b *testing.B) {
	for range b.N {
		Sum(20000)
	}
}
`)
	git(t, repo, "init", "-q", "-b", "main")
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "base")
	cands := filepath.Join(dir, "cands")
	slow, _ := json.Marshal(slowSum)
	fast, _ := json.Marshal(fastSum)
	writeFile(t, filepath.Join(cands, "hostile", "p", "evil.go"), strings.NewReplacer("{{SLOW}}", string(slow), "{{FAST}}", string(fast)).Replace(survivorInit))
	writeFile(t, filepath.Join(cands, "readme", "README"), "changes nothing that runs\n")

	verdict := func(t *testing.T, j int, sandbox string) (string, string) {
		t.Helper()
		out, stderr, _ := runCLI(t, "--repo", repo, "--candidates", cands, "-j", fmt.Sprint(j), "--all", "--no-daemon",
			"--no-cache", "--no-profile", "--min-pairs", "3", "--max-pairs", "5", "--bench-budget", "8s",
			"--timeout", "2m", "--sandbox", sandbox, "--format", "json")
		defer survivors(`for d in "$SLOTS"/*/`) // whatever the control left: its loop is on its command line
		if !strings.HasPrefix(strings.TrimSpace(out), "{") {
			t.Fatalf("-j %d --sandbox %s: no report:\n%s\n%s", j, sandbox, out, stderr)
		}
		return verdictsOf(t, out)["readme"], out
	}
	t.Run("Control", func(t *testing.T) {
		t.Setenv(proc.ContainEnv, proc.ContainGroup)
		start := time.Now()
		if v, out := verdict(t, 2, "off"); v != "winner" && v != "faster" {
			t.Errorf("with the process group alone, the survivor should make the README-only candidate faster; it is %s\n%s", v, out)
		}
		t.Logf("control: %s", time.Since(start).Round(time.Second))
	})
	sandboxes := []string{"off"}
	if proc.SandboxAvailable() == nil {
		sandboxes = append(sandboxes, "on")
	}
	for _, sb := range sandboxes {
		for _, j := range []int{1, 2, 4} {
			if sb == "on" && j != 2 {
				// bwrap's PID namespace does not depend on -j; -j 1 and 4
				// passed too (docs/reliability.md), but would double the
				// test's time in CI.
				continue
			}
			t.Run(fmt.Sprintf("sandbox-%s-j%d", sb, j), func(t *testing.T) {
				start := time.Now()
				if v, out := verdict(t, j, sb); v != "not-faster" {
					t.Errorf("-j %d --sandbox %s (containment %s): the README-only candidate is %s, want not-faster\n%s", j, sb, proc.Containment(), v, out)
				}
				t.Logf("%s", time.Since(start).Round(time.Second))
			})
		}
	}
}
