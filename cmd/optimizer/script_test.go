package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/testdata"
)

// TestMain runs the tests off the machine's lock and daemon socket. A daemon
// the developer runs must not take the tests' jobs, and the tests that want
// one start their own. Scripts get $WORK/.tmp as TMPDIR from testscript.
func TestMain(m *testing.M) {
	testscript.Main(testenv.Hermetic(m), map[string]func(){"optimizer": main})
}

// TestScript runs the CLI end to end: testdata/script/*.txtar. The scripts
// named e2e_*.txtar run whole jobs (go test, benchmarks), and only with
// [long] (see scriptCondition); the others stop before anything runs,
// or read the store.
func TestScript(t *testing.T) {
	goEnv := goEnvironment(t)
	jsTools, err := filepath.Abs("../../testdata/jstools")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("JSTOOLS", jsTools) // for [exists:$JSTOOLS/…]
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Vars = append(env.Vars,
				"HOME="+env.WorkDir+"/home",
				"GIT_CONFIG_NOSYSTEM=1",
				"GIT_CEILING_DIRECTORIES="+env.WorkDir,
				"GIT_CONFIG_GLOBAL=/dev/null",
				"GIT_AUTHOR_NAME=script", "GIT_AUTHOR_EMAIL=script@example.invalid",
				"GIT_COMMITTER_NAME=script", "GIT_COMMITTER_EMAIL=script@example.invalid",
				"GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=",
			)
			env.Vars = append(env.Vars, goEnv...)
			env.Vars = append(env.Vars, "JSTOOLS="+jsTools)
			return nil
		},
		Condition: scriptCondition,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":     cmdExits,
			"fixture":   cmdFixture,
			"democands": cmdDemoCands,
			"without":   cmdWithout,
			"gitinit":   cmdGitInit,
		},
	})
}

// scriptCondition knows [long]: true when the long end-to-end tests run
// (OPTIMIZER_LONG_TESTS=1, without -race: testenv.Once), so that a script
// that runs whole jobs can say [!long] skip. It knows [exists:PATH] too, for
// a tool's file ($JSTOOLS expanded).
func scriptCondition(cond string) (bool, error) {
	if cond == "long" {
		return testenv.OnceOn(), nil
	}
	if p, ok := strings.CutPrefix(cond, "exists:"); ok {
		_, err := os.Stat(os.ExpandEnv(p))
		return err == nil, nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

// goEnvironment passes the go command's caches through to the scripts, so
// that the fixture's tests build as fast as they do outside.
func goEnvironment(t *testing.T) []string {
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	f := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(f) != 3 {
		t.Fatalf("go env: unexpected output %q", out)
	}
	return []string{"GOCACHE=" + f[0], "GOMODCACHE=" + f[1], "GOPATH=" + f[2]}
}

// exits N PROG ARGS... runs PROG and checks that it exits with status N.
// Its stdout and stderr are kept for the next stdout and stderr checks.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits N PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad status %q", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("exits: %v", err)
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// fixture DIR writes the fixture module to DIR and commits it.
func cmdFixture(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: fixture DIR")
	}
	dir := ts.MkAbs(args[0])
	ts.Check(testdata.WriteFixture(dir))
	_, err := testdata.InitRepo(context.Background(), dir)
	ts.Check(err)
}

// democands DIR writes the demo candidates to DIR.
func cmdDemoCands(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: democands DIR")
	}
	ts.Check(testdata.WriteDemoCandidates(ts.MkAbs(args[0])))
}

// without NAME... sets PATH to one directory of links to every program on
// PATH but those named, as on a machine where they are not installed.
func cmdWithout(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: without NAME...")
	}
	bin := ts.MkAbs(".without")
	ts.Check(os.MkdirAll(bin, 0o755))
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if slices.Contains(args, e.Name()) {
				continue
			}
			link := filepath.Join(bin, e.Name())
			if _, err := os.Lstat(link); err == nil {
				continue // an earlier directory of PATH wins
			}
			ts.Check(os.Symlink(filepath.Join(dir, e.Name()), link))
		}
	}
	ts.Setenv("PATH", bin)
}

// gitinit DIR makes DIR, as the script wrote it, a git repository with one
// commit of everything in it.
func cmdGitInit(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: gitinit DIR")
	}
	_, err := testdata.InitRepo(context.Background(), ts.MkAbs(args[0]))
	ts.Check(err)
}
