package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/client"
	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/store"
)

// followRun is optimizer run in a child process, through a daemon.
type followRun struct {
	cmd            *exec.Cmd
	stdout, stderr *syncBuffer
	done           chan struct{}
	code           int
}

func startFollowRun(t *testing.T, bin, sock, repo, cands string) *followRun {
	t.Helper()
	r := &followRun{stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan struct{})}
	r.cmd = exec.Command(bin, "run", "--socket", sock, "--repo", repo, "--candidates", cands,
		"--test", "sh test.sh", "--bench", "sh bench.sh", "--profile", "sh prof.sh", "--timeout", "2m",
		"--max-pairs", "20", "--no-pin", "--sandbox", "off")
	r.cmd.Dir = repo
	r.cmd.Stdout, r.cmd.Stderr = r.stdout, r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		err := r.cmd.Wait()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			r.code = ee.ExitCode()
		case err != nil:
			r.code = -1
		}
		close(r.done)
	}()
	t.Cleanup(func() {
		r.cmd.Process.Kill()
		<-r.done
	})
	return r
}

// wait waits for the run's end, at most 5 minutes.
func (r *followRun) wait(t *testing.T, d *killDaemon) {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(5 * time.Minute):
		t.Fatalf("the client did not end in 5 minutes:\n%s\ndaemon:\n%s", r.stderr, d.output())
	}
}

// waitStderr waits until the run's stderr says want.
func (r *followRun) waitStderr(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for !strings.Contains(r.stderr.String(), want) {
		select {
		case <-r.done:
			t.Fatalf("the client exited %d before it said %q:\n%s", r.code, want, r.stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the client did not say %q in 3 minutes:\n%s", want, r.stderr)
		}
		time.Sleep(20 * time.Millisecond) // polling another process's output
	}
}

// TestDaemonKill9_FollowingClient kills the daemon with SIGKILL in a
// candidate's tests while optimizer run follows the job, then starts
// another. The client says the daemon went away and that it retries, and
// resumes once the daemon answers. It prints the report the daemon has for
// the job, with the exit code of a run that was never cut.
func TestDaemonKill9_FollowingClient(t *testing.T) {
	testenv.Long(t)
	bin, err := exec.LookPath("optimizer") // the test binary, set up by testscript.Main
	if err != nil {
		t.Fatal(err)
	}
	repo, cands := newShellRepo(t, 0)
	mark := t.TempDir()
	sockDir, err := os.MkdirTemp("", "odf")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(sockDir)
	sock, state, lock := filepath.Join(sockDir, "d.sock"), t.TempDir(), filepath.Join(mark, "machine.lock")
	d := startKillDaemon(t, bin, sock, state, mark, lock, []string{"KILL=test-cand"}, 4)

	run := startFollowRun(t, bin, sock, repo, cands)
	waitMarker(t, d)
	run.waitStderr(t, "on the daemon (job ")
	d.kill()
	run.waitStderr(t, "the daemon went away")
	if !strings.Contains(run.stderr.String(), "retrying for up to") {
		t.Errorf("the client did not say that it retries, nor for how long:\n%s", run.stderr)
	}
	d2 := startKillDaemon(t, bin, sock, state, mark, lock, nil, 4)
	defer func() {
		d2.cmd.Process.Signal(syscall.SIGTERM)
		<-d2.done
	}()
	run.wait(t, d2)
	if run.code != 0 {
		t.Fatalf("the client exited %d across the restart, want 0:\n%s\ndaemon:\n%s", run.code, run.stderr, d2.output())
	}
	if !strings.Contains(run.stderr.String(), "the daemon answers again") {
		t.Errorf("the client did not say that it follows the job again:\n%s", run.stderr)
	}
	_, rest, _ := strings.Cut(run.stderr.String(), "on the daemon (job ")
	id, _, _ := strings.Cut(rest, ")")
	c := client.New(sock)
	ctx := context.Background()
	j, err := c.Job(ctx, id)
	if err != nil || j.State != "finished" || j.Attempts != 2 {
		t.Fatalf("job %s: %s after %d attempts (%v), want finished after 2", id, j.State, j.Attempts, err)
	}
	want, err := c.Report(ctx, id, "text")
	if err != nil {
		t.Fatal(err)
	}
	if got := run.stdout.String(); got != string(want) {
		t.Errorf("the client printed:\n%s\nwant the job's report, as an uninterrupted run prints it:\n%s", got, want)
	}

	// The job has one id: optimizer show finds its run by it, and the
	// interrupted run is kept beside it.
	show := exec.Command(bin, "show", id)
	show.Dir = repo
	if out, err := show.CombinedOutput(); err != nil || !strings.Contains(string(out), "fast") {
		t.Errorf("optimizer show %s: %v\n%s", id, err, out)
	}
	db, err := store.Open(ctx, filepath.Join(repo, ".git", "optimizer", "optimizer.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for run, state := range map[string]string{id: "finished", id + "~1": "interrupted"} {
		if r, err := db.Job(ctx, run); err != nil || r.ID != run || r.State != state {
			t.Errorf("run %s in the repository's store: %s %s (%v), want %s", run, r.ID, r.State, err, state)
		}
	}

	// An uninterrupted run of the same job ends the same way.
	again := startFollowRun(t, bin, sock, repo, cands)
	again.wait(t, d2)
	if again.code != run.code {
		t.Errorf("an uninterrupted run exited %d, the one across the restart %d", again.code, run.code)
	}
	if got, want := verdictLines(run.stdout.String()), verdictLines(again.stdout.String()); got != want {
		t.Errorf("verdicts across the restart:\n%s\nwant those of an uninterrupted run:\n%s", got, want)
	}
}

// verdictLines is what a text report says of each candidate: failed or
// not. Which of the passing ones is faster depends on the machine's noise.
func verdictLines(report string) string {
	var out []string
	for _, line := range strings.Split(report, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || (f[0] != "fast" && f[0] != "broken" && f[0] != "patchy") || f[1] == "vs" {
			continue
		}
		out = append(out, fmt.Sprintf("%s failed=%v", f[0], f[1] == "failed"))
	}
	return strings.Join(out, "\n")
}
