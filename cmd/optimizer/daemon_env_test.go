package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestDaemon_ClientPATH: a daemon's PATH lacks the tool that the test
// command runs, and a client's PATH has it. That is the case under the
// example systemd unit, without /usr/local/go/bin. The job runs with the
// client's PATH and its tests pass. A variable outside the default list
// reaches the job only when --env names it.
func TestDaemon_ClientPATH(t *testing.T) {
	bin, err := exec.LookPath("optimizer") // the test binary, set up by testscript.Main
	if err != nil {
		t.Fatal(err)
	}
	tools := t.TempDir()
	tool := "#!/bin/sh\ntest \"$(cat ok)\" = yes && test \"$MYTOOL_MODE\" = strict\n"
	if err := os.WriteFile(filepath.Join(tools, "mytool"), []byte(tool), 0o755); err != nil {
		t.Fatal(err)
	}
	repo, cands := newShellRepo(t, 0)
	mark := t.TempDir()
	sockDir, err := os.MkdirTemp("", "ode")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(sockDir)
	sock := filepath.Join(sockDir, "d.sock")
	d := startKillDaemon(t, bin, sock, t.TempDir(), mark, filepath.Join(mark, "machine.lock"),
		[]string{"PATH=" + os.Getenv("PATH"), "MYTOOL_MODE=daemon"}, 2, "--allow-env", "PATH,MYTOOL_*")
	defer func() {
		d.cmd.Process.Signal(syscall.SIGTERM)
		<-d.done
	}()
	if _, err := exec.LookPath("mytool"); err == nil {
		t.Fatal("mytool is on the test's own PATH: the daemon would find it")
	}

	run := func(extra ...string) (string, string, error) {
		cmd := exec.Command(bin, append([]string{"run", "--socket", sock, "--repo", repo, "--candidates", cands,
			// The sandbox hides TMPDIR, where the test keeps mytool.
			"--test", "mytool", "--bench", "none", "--timeout", "2m", "--sandbox", "off"}, extra...)...)
		cmd.Env = append(os.Environ(), "PATH="+tools+":"+os.Getenv("PATH"), "MYTOOL_MODE=strict", "SECRET_TOKEN=s3cret")
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}
	stdout, stderr, err := run("--env", "MYTOOL_MODE")
	if err != nil {
		t.Fatalf("optimizer run with mytool on the client's PATH: %v\n%s\n%s\ndaemon:\n%s", err, stdout, stderr, d.output())
	}
	if !strings.Contains(stderr, "on the daemon") {
		t.Fatalf("the job did not go to the daemon:\n%s", stderr)
	}
	for _, want := range []string{"fast", "patchy"} {
		if !strings.Contains(verdictLines(stdout), want+" failed=false") {
			t.Errorf("%s failed: the job did not run with the client's PATH and --env:\n%s\n%s", want, stdout, stderr)
		}
	}

	// Without --env, MYTOOL_MODE stays the daemon's: base's tests fail.
	stdout, stderr, err = run()
	if err == nil {
		t.Errorf("without --env MYTOOL_MODE the job passed; the daemon's value should hold:\n%s\n%s", stdout, stderr)
	}
	// A variable the daemon's policy does not name is refused, naming the flag.
	_, stderr, err = run("--env", "SECRET_TOKEN")
	if err == nil || !strings.Contains(stderr, "--allow-env SECRET_TOKEN") {
		t.Errorf("--env SECRET_TOKEN on a daemon that does not allow it: %v\n%s", err, stderr)
	}
}
