package gotest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The modules that tests run real go test -json on. Each is written to a
// temporary directory once per test binary; go test runs there once, and
// the captured stream is shared.
var (
	// variety holds one package per kind of outcome.
	variety = map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"ok/ok_test.go": `package ok
import "testing"
func TestA(t *testing.T)    { t.Log("hello") }
func TestSkip(t *testing.T) { t.Skip("not today") }
`,
		"fail/fail_test.go": `package fail
import "testing"
func TestGood(t *testing.T) {}
func TestBad(t *testing.T)  { t.Errorf("got %d want %d", 1, 2) }
`,
		"sub/sub_test.go": `package sub
import "testing"
func TestT(t *testing.T) {
	t.Run("good", func(t *testing.T) {})
	t.Run("bad case", func(t *testing.T) { t.Fatal("boom") })
}
`,
		"broken/b.go": "package broken\n\nfunc F() int { return \"x\" }\n",
		"broken/b_test.go": `package broken
import "testing"
func TestF(t *testing.T) { F() }
`,
		"panicky/p_test.go": `package panicky
import "testing"
func TestOK(t *testing.T)    {}
func TestPanic(t *testing.T) { var m map[string]int; m["a"] = 1 }
func TestAfter(t *testing.T) {}
`,
		"mainpanic/m_test.go": `package mainpanic
import "testing"
func TestMain(m *testing.M) { panic("setup broke") }
func TestX(t *testing.T)    {}
`,
		"setup/s_test.go": `package setup
import (
	"testing"
	_ "example.com/m/nonexistent"
)
func TestX(t *testing.T) {}
`,
		"notests/n.go": "package notests\n\nfunc F() {}\n",
		"chatty/c_test.go": `package chatty
import (
	"fmt"
	"testing"
)
func TestChatty(t *testing.T) {
	t.Error("first error")
	for i := 0; i < 500; i++ {
		fmt.Println("noise line", i)
	}
	t.Error("last error")
}
`,
	}

	// before and after are one module at base and with a candidate applied.
	before = map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"a/a_test.go": `package a
import "testing"
func TestA1(t *testing.T) {}
func TestA2(t *testing.T) {}
func TestSub(t *testing.T) {
	t.Run("x", func(t *testing.T) {})
	t.Run("y", func(t *testing.T) {})
}
`,
		"b/b.go":      "package b\n\nfunc B() int { return 1 }\n",
		"b/b_test.go": "package b\n\nimport \"testing\"\n\nfunc TestB(t *testing.T) { B() }\n",
		"c/c_test.go": `package c
import (
	"os"
	"testing"
)
func TestMain(m *testing.M) { os.Exit(m.Run()) }
func TestC(t *testing.T)    {}
`,
		"d/d_test.go": "package d\n\nimport \"testing\"\n\nfunc TestD(t *testing.T) {}\n",
		"e/e_test.go": "package e\n\nimport \"testing\"\n\nfunc TestE(t *testing.T) {}\n",
	}
	after = with(before, map[string]string{
		"a/a_test.go": `package a
import "testing"
func TestA1(t *testing.T) { t.Error("A1 broke") }
func TestA2(t *testing.T) {}
func TestSub(t *testing.T) {
	t.Run("x", func(t *testing.T) {})
	t.Run("y", func(t *testing.T) { t.Error("y broke") })
}
`,
		"b/b.go": "package b\n\nfunc B() int { return nil }\n",
		"c/c_test.go": `package c
import "testing"
func TestMain(m *testing.M) { panic("main broke") }
func TestC(t *testing.T)    {}
`,
		"d/d_test.go": "package d\n\nimport \"testing\"\n\nfunc TestD2(t *testing.T) { t.Error(\"new test fails\") }\n",
	})
)

func with(m, over map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

var (
	fixtureDir  string
	fixtureMu   sync.Mutex
	fixtureRuns = map[string][]byte{}
)

func TestMain(m *testing.M) {
	code := m.Run()
	if fixtureDir != "" {
		os.RemoveAll(fixtureDir)
	}
	os.Exit(code)
}

// goTestJSON returns the stdout (and, with mergeStderr, the stderr) of
// "go test -json ./..." in module files, running it once per name. env is
// added to the environment.
func goTestJSON(t *testing.T, name string, files map[string]string, mergeStderr bool, env ...string) []byte {
	t.Helper()
	if testing.Short() {
		t.Skip("runs go test")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	fixtureMu.Lock()
	defer fixtureMu.Unlock()
	if out, ok := fixtureRuns[name]; ok {
		return out
	}
	if fixtureDir == "" {
		if fixtureDir, err = os.MkdirTemp("", "gotest-fixture-"); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(fixtureDir, name)
	for path, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(goBin, "test", "-json", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=", "GOTOOLCHAIN=local", "GOPROXY=off")
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if mergeStderr {
		cmd.Stderr = &stdout
	}
	err = cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("run go test in %s: %v", name, err)
	}
	if stdout.Len() == 0 {
		t.Fatalf("go test in %s printed nothing on stdout; stderr:\n%s", name, stderr.Bytes())
	}
	fixtureRuns[name] = stdout.Bytes()
	return stdout.Bytes()
}

// dump helps when an assertion fails.
func dump(r *Run) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "tests %v\npackages %v\nbuild failed %v\n", r.Tests, r.Packages, r.BuildFailed)
	for k, v := range r.Output {
		fmt.Fprintf(&b, "--- output %s:\n%s\n", k, v)
	}
	return b.String()
}
