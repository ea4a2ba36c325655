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

	"github.com/optimizer-dev/optimizer/api"
	"github.com/optimizer-dev/optimizer/client"
	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/jobspec"
	"github.com/optimizer-dev/optimizer/store"
)

// daemonKillPoint is one place to kill the daemon at: after its job is
// accepted, while a job is queued, or inside one of the job's phases.
type daemonKillPoint struct {
	name string
	env  []string // KILL=... or KILLGIT=..., in the daemon's environment
	// wait, when set, replaces waiting for the marker: it returns once the
	// point is reached.
	wait func(t *testing.T, d *killDaemon, c *client.Client, id string)
	// queued submits a second job behind the first, with --max-jobs 1.
	queued bool
}

func daemonKillPoints() []daemonKillPoint {
	return []daemonKillPoint{
		{name: "Accepted", wait: func(*testing.T, *killDaemon, *client.Client, string) {}},
		{name: "Queued", env: []string{"KILL=test-base"}, queued: true},
		{name: "PoolCreation", env: []string{"KILLGIT=worktree add"}},
		{name: "ContentIDs", env: []string{"KILLGIT=read-tree"}},
		{name: "BaselineTest", env: []string{"KILL=test-base"}},
		{name: "CandidateTest", env: []string{"KILL=test-cand"}},
		{name: "StagePatch", env: []string{"KILLGIT=apply --whitespace=nowarn -"}},
		{name: "SlotReset", env: []string{"KILLGIT=checkout-index"}},
		{name: "BenchmarkBase", env: []string{"KILL=bench-base"}},
		{name: "BenchmarkCandidate", env: []string{"KILL=bench-cand"}},
		{name: "Profile", env: []string{"KILL=profile"}},
		{name: "Report", wait: waitEvent("job-done")},
	}
}

// waitEvent waits for the job's first event of this kind.
func waitEvent(kind string) func(t *testing.T, d *killDaemon, c *client.Client, id string) {
	return func(t *testing.T, d *killDaemon, c *client.Client, id string) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		errSeen := errors.New("seen")
		if err := c.Events(ctx, id, 0, func(e api.Event) error {
			if e.Kind == kind {
				return errSeen
			}
			return nil
		}); !errors.Is(err, errSeen) {
			t.Fatalf("no %s event: %v\n%s", kind, err, d.output())
		}
	}
}

// killDaemon is one daemon process of a kill test.
type killDaemon struct {
	sock, state, mark string
	cmd               *exec.Cmd
	done              chan struct{}
	err               error // cmd.Wait's
	out               string
}

func (d *killDaemon) output() string {
	b, _ := os.ReadFile(d.out)
	return string(b)
}

// startKillDaemon starts optimizer daemon, with extra flags, and waits
// until it is ready.
func startKillDaemon(t *testing.T, bin, sock, state, mark, lock string, env []string, maxJobs int, extra ...string) *killDaemon {
	t.Helper()
	d := &killDaemon{sock: sock, state: state, mark: mark, done: make(chan struct{}),
		out: filepath.Join(mark, fmt.Sprintf("daemon-%d.log", time.Now().UnixNano()))}
	d.cmd = exec.Command(bin, append([]string{"daemon", "--socket", sock, "--state-dir", state, "-j", "2", "--max-jobs", fmt.Sprint(maxJobs), "--allow-unsandboxed",
		"--machine-lock", lock}, extra...)...) // the kill points' daemons take turns, apart from other tests
	d.cmd.Env = append(append(os.Environ(), "MARK="+mark), env...)
	f, err := os.Create(d.out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d.cmd.Stdout, d.cmd.Stderr = f, f
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		d.err = d.cmd.Wait()
		close(d.done)
	}()
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(d.output(), "msg=ready") {
		select {
		case <-d.done:
			t.Fatalf("the daemon exited before it was ready: %v\n%s", d.err, d.output())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the daemon was not ready in a minute:\n%s", d.output())
		}
		time.Sleep(20 * time.Millisecond) // polling the log another process writes
	}
	return d
}

func (d *killDaemon) kill() {
	d.cmd.Process.Signal(syscall.SIGKILL)
	<-d.done
}

// TestDaemonKill9 kills the daemon with SIGKILL at each point and restarts
// it. It checks that:
//   - no accepted job is lost, and the interrupted one runs again to the end;
//   - no slot is left held and no process of the killed daemon survives;
//   - the user's repository is untouched;
//   - the restarted daemon exits 0 on SIGTERM.
func TestDaemonKill9(t *testing.T) {
	testenv.Long(t)
	bin, err := exec.LookPath("optimizer") // the test binary, set up by testscript.Main
	if err != nil {
		t.Fatal(err)
	}
	wrapper := gitWrapper(t)
	lock := filepath.Join(t.TempDir(), "machine.lock")
	for _, kp := range daemonKillPoints() {
		t.Run(kp.name, func(t *testing.T) {
			t.Parallel()
			repo, cands := newShellRepo(t, 0)
			before := snapshot(t, repo)
			mark := t.TempDir()
			sockDir, err := os.MkdirTemp("", "odk")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(sockDir)
			sock, state := filepath.Join(sockDir, "d.sock"), t.TempDir()
			maxJobs := 4
			if kp.queued {
				maxJobs = 1
			}
			env := append([]string{"PATH=" + wrapper + ":" + os.Getenv("PATH")}, kp.env...)
			d := startKillDaemon(t, bin, sock, state, mark, lock, env, maxJobs)
			c := client.New(sock)
			ctx := context.Background()
			req := api.JobRequest{Repo: repo, CandidatePaths: []string{cands}, Options: jobspec.Spec{
				Test: "sh test.sh", Bench: "sh bench.sh", ProfileCmd: "sh prof.sh", Timeout: jobspec.Duration(2 * time.Minute),
				MaxPairs: 20, NoPin: true, Sandbox: "off"}} // 20: on a busy machine fast wins within them, which the Profile point needs
			var ids []string
			for range 1 + btoi(kp.queued) {
				sub, err := c.Submit(ctx, req)
				if err != nil {
					d.kill()
					t.Fatalf("submit: %v\n%s", err, d.output())
				}
				ids = append(ids, sub.ID)
			}
			if kp.wait != nil {
				kp.wait(t, d, c, ids[0])
			} else {
				waitMarker(t, d)
			}
			if kp.queued {
				j, err := c.Job(ctx, ids[1])
				if err != nil || j.State != "queued" {
					t.Fatalf("the second job is %s (%v), want queued at the kill", j.State, err)
				}
			}
			d.kill()

			d2 := startKillDaemon(t, bin, sock, state, mark, lock, []string{"PATH=" + wrapper + ":" + os.Getenv("PATH")}, maxJobs)
			for _, id := range ids {
				waitEnded(t, d2, c, id)
				j, err := c.Job(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				if j.State != "finished" || j.Report == nil {
					t.Fatalf("job %s after the restart: %s (%s), want finished", id, j.State, j.Error)
				}
				for _, cr := range j.Report.Candidates {
					if cr.Verdict == "pending" || (cr.Name == "broken") != (cr.Verdict == "failed") {
						t.Errorf("job %s after the restart: %s is %s", id, cr.Name, cr.Verdict)
					}
				}
			}
			checkDaemonRecovered(t, c, repo, mark)
			if diff := before.diff(snapshot(t, repo)); diff != "" && !onlyWorktrees(diff) {
				t.Errorf("the repository changed:\n%s", diff)
			}
			d2.cmd.Process.Signal(syscall.SIGTERM)
			<-d2.done
			if d2.err != nil {
				t.Errorf("the daemon's exit on SIGTERM: %v, want 0\n%s", d2.err, d2.output())
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func waitMarker(t *testing.T, d *killDaemon) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		if _, err := os.Stat(filepath.Join(d.mark, "at")); err == nil {
			return
		}
		select {
		case <-d.done:
			t.Fatalf("the daemon exited before the kill point:\n%s", d.output())
		default:
		}
		if time.Now().After(deadline) {
			d.kill()
			t.Fatalf("the kill point was not reached in 3 minutes:\n%s", d.output())
		}
		time.Sleep(20 * time.Millisecond) // polling a file another process writes
	}
}

func waitEnded(t *testing.T, d *killDaemon, c *client.Client, id string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := c.Events(ctx, id, 0, func(api.Event) error { return nil }); err != nil {
		t.Fatalf("job %s: %v\n%s", id, err, d.output())
	}
}

// checkDaemonRecovered: no slot held, no process of the killed daemon
// alive, the killed run interrupted in the repository's store.
func checkDaemonRecovered(t *testing.T, c *client.Client, repo, mark string) {
	t.Helper()
	ctx := context.Background()
	h, err := c.Health(ctx)
	if err != nil || h.Running != 0 || h.Queued != 0 {
		t.Errorf("health after the jobs: %+v, %v; want nothing running or queued", h, err)
	}
	metrics, err := c.Metrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(metrics, "\n") {
		if (strings.HasPrefix(line, "optimizer_slots_busy") || strings.HasPrefix(line, "optimizer_gate_slots_held")) && !strings.HasSuffix(line, " 0") {
			t.Errorf("a slot is still held: %s", line)
		}
	}
	for _, p := range readPIDs(t, mark) {
		if processRuns(p) {
			t.Errorf("process %d, started under the killed daemon, still runs", p)
			syscall.Kill(p, syscall.SIGKILL)
		}
	}
	db, err := store.Open(ctx, filepath.Join(repo, ".git", "optimizer", "optimizer.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	jobs, err := db.Jobs(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		if j.State != "finished" && j.State != "interrupted" {
			t.Errorf("run %s in the repository's store is %s, want finished or interrupted", j.ID, j.State)
		}
	}
}

// onlyWorktrees reports whether a snapshot diff is only the daemon's warm
// slots, which it keeps as --keep-slots does.
func onlyWorktrees(diff string) bool {
	for _, line := range strings.Split(strings.TrimSpace(diff), "\n") {
		if !strings.HasPrefix(line, "git worktrees:") && !strings.HasPrefix(line, "  ") {
			return false
		}
	}
	return true
}
