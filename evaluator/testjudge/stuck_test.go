package testjudge

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/gotest"
)

// parallelSubtests is a package whose TestParent runs two parallel
// subtests of 1.5 s each: go test reports TestParent's own time as about
// 0 s, though it runs until they end.
var parallelSubtests = map[string]string{
	"go.mod": "module example.com/p\n\ngo 1.22\n",
	"p_test.go": `package p

import (
	"testing"
	"time"
)

func TestParent(t *testing.T) {
	for _, n := range []string{"a", "b"} {
		t.Run(n, func(t *testing.T) {
			t.Parallel()
			time.Sleep(1500 * time.Millisecond)
		})
	}
}
`,
}

// TestStuck_ParallelSubtests: a test whose parallel subtests run past
// stuckGrace finishes normally and is never called stuck, though go test
// says it took 0 s at base. Both runs are real go test -json runs; the
// second is checked as watchStuck checks it, every tenth of a second.
func TestStuck_ParallelSubtests(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command")
	}
	dir := t.TempDir()
	for name, body := range parallelSubtests {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goTest := func(p *gotest.Parser) *exec.Cmd {
		cmd := exec.Command("go", "test", "-json", "-count=1", ".")
		cmd.Dir, cmd.Stdout = dir, p
		return cmd
	}
	base := gotest.NewParser()
	if err := goTest(base).Run(); err != nil {
		t.Fatalf("go test at base: %v", err)
	}
	times := base.Result().Elapsed
	if _, ok := times["example.com/p.TestParent"]; !ok {
		t.Fatalf("base's times %v lack TestParent", times)
	}

	p := gotest.NewParser()
	cmd := goTest(p)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	sawParent := false
	for tick := time.NewTicker(100 * time.Millisecond); ; {
		select {
		case err := <-exited:
			tick.Stop()
			if err != nil {
				t.Fatalf("go test: %v", err)
			}
			if !sawParent {
				t.Skip("TestParent was never seen running: go test held back its output")
			}
			return
		case <-tick.C:
		}
		running := p.Running()
		for _, r := range running {
			sawParent = sawParent || r.Key == "example.com/p.TestParent"
		}
		if r, took, ok := Stuck(running, times, time.Now()); ok {
			t.Fatalf("%s called stuck after %s (%s at base); it runs its parallel subtests",
				r.Key, time.Since(r.Since).Round(time.Millisecond), took)
		}
	}
}
