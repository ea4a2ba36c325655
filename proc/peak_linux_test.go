package proc

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"
)

// allocEnv makes this test binary, started by a test, touch that many MiB
// of memory and exit.
const allocEnv = "PROC_TEST_ALLOC_MIB"

func init() {
	n, err := strconv.Atoi(os.Getenv(allocEnv))
	if err != nil {
		return
	}
	b := make([]byte, n<<20)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	os.Exit(int(b[0]) - 1)
}

// TestRun_PeakRSS runs this binary as a grandchild (under sh) touching 96
// MiB, and a plain sh. It does so in each way a run is contained here, and
// in the sandbox. The first's peak is at least 96 MiB and the second's far
// less, so no wrapper's own memory is counted. A command cannot forge the
// wrapper's report. BigParent: nor is this process's memory counted.
func TestRun_PeakRSS(t *testing.T) {
	// A command's peak is at least the wrapper's resident memory, which it
	// starts from: sh is a few MiB, a wrapper built with -race about 20.
	small := int64(8 << 20)
	if raceOn {
		small = 32 << 20
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const mib = 96
	type way struct {
		name    string
		contain string
		box     *Sandbox
	}
	ways := []way{{"group", ContainGroup, nil}, {"reaper", ContainReaper, nil}}
	if cgroupBase() != "" {
		ways = append(ways, way{"cgroup", ContainCgroup, nil})
	}
	if SandboxAvailable() == nil {
		// The test binary may sit under /tmp, which the sandbox hides.
		ways = append(ways, way{"sandbox", "", &Sandbox{ReadOnly: []string{self}}})
	}
	for _, w := range ways {
		t.Run(w.name, func(t *testing.T) {
			if w.contain != "" {
				t.Setenv(ContainEnv, w.contain)
			}
			run := func(line string, env ...string) Result {
				t.Helper()
				res, err := Run(t.Context(), Cmd{Args: Shell(line), Env: env, CPU: -1, PeakRSS: true, Sandbox: w.box})
				if err != nil || res.ExitCode != 0 {
					t.Fatalf("%s: exit %d (%v): %s", line, res.ExitCode, err, res.Output)
				}
				return res
			}
			big := run(fmt.Sprintf("%q; true", self), fmt.Sprintf("%s=%d", allocEnv, mib))
			sh := run("true")
			t.Logf("peak: %d KiB touching %d MiB, %d KiB for sh", big.MaxRSS>>10, mib, sh.MaxRSS>>10)
			if big.MaxRSS < mib<<20 {
				t.Errorf("peak %d KiB for a process that touched %d MiB", big.MaxRSS>>10, mib)
			}
			if sh.MaxRSS <= 0 || sh.MaxRSS > small {
				t.Errorf("peak %d KiB for sh -c true: want at most %d KiB", sh.MaxRSS>>10, small>>10)
			}
			forged := run("echo rss 99999999999 >&3 2>/dev/null; echo rss 99999999999 >&4 2>/dev/null; true")
			if forged.MaxRSS > 1<<30 {
				t.Errorf("the command forged its peak: %d bytes", forged.MaxRSS)
			}
		})
	}
	// A run starts from this process's pages (vfork): a daemon of 128 MiB
	// must not make every command's peak 128 MiB.
	t.Run("BigParent", func(t *testing.T) {
		t.Setenv(ContainEnv, ContainGroup)
		ballast := make([]byte, 128<<20)
		for i := 0; i < len(ballast); i += 4096 {
			ballast[i] = 1
		}
		res, err := Run(t.Context(), Cmd{Args: Shell("true"), CPU: -1, PeakRSS: true})
		runtime.KeepAlive(ballast)
		if err != nil || res.MaxRSS <= 0 || res.MaxRSS > small {
			t.Errorf("peak %d KiB (%v) for sh -c true, run by a process of 128 MiB", res.MaxRSS>>10, err)
		}
	})
	t.Run("NotAsked", func(t *testing.T) {
		res, err := Run(t.Context(), Cmd{Args: Shell("true"), CPU: -1})
		if err != nil || res.MaxRSS != 0 {
			t.Errorf("MaxRSS %d (%v) without PeakRSS, want 0", res.MaxRSS, err)
		}
	})
}
