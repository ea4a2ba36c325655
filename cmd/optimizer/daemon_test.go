package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/optimizer-dev/optimizer/client"
	"github.com/optimizer-dev/optimizer/daemon"
	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/jobspec"
	"github.com/optimizer-dev/optimizer/watch"
)

// startTestDaemon runs a daemon in this process on a fresh socket until the
// test ends, and returns the socket. It is started --allow-unsandboxed: the
// tests compare it with in-process runs of --sandbox off.
func startTestDaemon(t *testing.T) string {
	t.Helper()
	return startPolicyDaemon(t, daemon.Policy{AllowUnsandboxed: true})
}

// startPolicyDaemon is startTestDaemon with the policy p.
func startPolicyDaemon(t *testing.T, p daemon.Policy) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "odc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "d.sock")
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	srv, err := daemon.New(ctx, daemon.Options{
		Socket: sock, StateDB: filepath.Join(t.TempDir(), "daemon.db"), Slots: 2, CPUs: 2,
		MachineLock: filepath.Join(dir, "machine.lock"),
		Ready:       func() { close(ready) },
		Policy:      p,
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("daemon: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("daemon: %v", err)
		}
	})
	return sock
}

// runCLI runs the CLI in-process and returns stdout, stderr and the exit code.
func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), args, &stdout, &stderr)
	return stdout.String(), stderr.String(), exitCode(err)
}

// verdictsOf reads a JSON report's verdicts, by candidate.
func verdictsOf(t *testing.T, out string) map[string]string {
	t.Helper()
	var rep evaluator.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not a JSON report: %v\n%s", err, out)
	}
	m := map[string]string{}
	for _, c := range rep.Candidates {
		m[c.Name] = string(c.Verdict)
	}
	return m
}

// TestRun_ThroughDaemon: with a daemon on the socket, optimizer run submits
// to it. It prints the same report, with the same exit code, and progress
// lines with an ETA, as --no-daemon. The user's repository is untouched
// either way.
func TestRun_ThroughDaemon(t *testing.T) {
	repo, cands := newShellRepo(t, 1)
	before := snapshot(t, repo)
	sock := startTestDaemon(t)
	args := []string{"--repo", repo, "--candidates", cands, "--test", "sh test.sh", "--bench", "none",
		"--format", "json", "--socket", sock, "--sandbox", "off", "--no-cache", "--min-speedup", "7.5", "--timeout", "90s"}

	local, localErr, localCode := runCLI(t, append(args, "--no-daemon")...)
	remote, remoteErr, remoteCode := runCLI(t, args...)
	if strings.Contains(localErr, "on the daemon") {
		t.Errorf("--no-daemon went to the daemon:\n%s", localErr)
	}
	if !strings.Contains(remoteErr, "on the daemon (job ") {
		t.Errorf("the run did not go to the daemon:\n%s", remoteErr)
	}
	if localCode != remoteCode {
		t.Errorf("exit %d through the daemon, %d in-process", remoteCode, localCode)
	}
	// The daemon chooses the slots; the job's start event tells the CLI, so
	// its progress lines give the time left as an in-process run's do.
	for where, stderr := range map[string]string{"in-process": localErr, "through the daemon": remoteErr} {
		if !strings.Contains(stderr, ", ETA ") {
			t.Errorf("%s, no line gives an ETA:\n%s", where, stderr)
		}
	}
	lv, rv := verdictsOf(t, local), verdictsOf(t, remote)
	if len(lv) != 4 || lv["broken"] != "failed" {
		t.Fatalf("in-process verdicts = %v, want 4 with broken failed", lv)
	}
	for name, v := range lv {
		if rv[name] != v {
			t.Errorf("candidate %s: %s through the daemon, %s in-process", name, rv[name], v)
		}
	}
	after := snapshot(t, repo)
	delete(before.git, "worktrees") // the daemon keeps its slots warm, as --keep-slots does
	delete(after.git, "worktrees")
	if d := before.diff(after); d != "" {
		t.Errorf("the user's repository changed:\n%s", d)
	}

	// The daemon's run is in the repository's store: history lists it.
	hist, _, code := runCLI(t, "history", "--repo", repo)
	if code != 0 || strings.Count(hist, "finished") < 2 {
		t.Errorf("history (exit %d) should list both runs as finished:\n%s", code, hist)
	}
	// Both record their spec, in its units, and nothing else of the CLI's.
	jobs := watchJobs(t, watchStorePath(t, repo))
	if len(jobs) != 2 {
		t.Fatalf("the repository's store has %d jobs, want 2", len(jobs))
	}
	for i, j := range jobs {
		var rec jobspec.Recorded
		dec := json.NewDecoder(bytes.NewReader(j.Config))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rec); err != nil {
			t.Fatalf("job %s's config is no recorded spec: %v\n%s", j.ID, err, j.Config)
		}
		if rec.Test != "sh test.sh" || rec.MinSpeedup != 7.5 || rec.Timeout != jobspec.Duration(90*time.Second) || !rec.NoCache ||
			rec.BaseCommit != j.Base || rec.Slots != j.Parallel || rec.Artifacts != j.Artifacts || rec.Daemon != (i == 1) {
			t.Errorf("job %s (daemon %v) recorded %s", j.ID, i == 1, j.Config)
		}
	}
	// jobs lists it with --all; nothing is queued or running now.
	out, _, code := runCLI(t, "jobs", "--socket", sock)
	if code != 0 || strings.TrimSpace(out) != "no jobs" {
		t.Errorf("jobs (exit %d) = %q, want no jobs", code, out)
	}
	out, _, code = runCLI(t, "jobs", "--all", "--socket", sock)
	if code != 0 || !strings.Contains(out, "finished") {
		t.Errorf("jobs --all (exit %d) = %q, want the finished job", code, out)
	}
}

// TestRun_ThroughDaemonRefused: a daemon started with the defaults refuses
// a run that asks for what its policy does not allow. The message names the
// daemon's flag and the way to run in this process instead.
func TestRun_ThroughDaemonRefused(t *testing.T) {
	repo, cands := newShellRepo(t, 0)
	sock := startPolicyDaemon(t, daemon.Policy{})
	for flag, args := range map[string][]string{
		"--allow-setup":       {"--setup", "true"},
		"--allow-unsandboxed": {"--sandbox", "off"},
	} {
		_, stderr, code := runCLI(t, append([]string{"--repo", repo, "--candidates", cands, "--test", "sh test.sh",
			"--bench", "none", "--socket", sock}, args...)...)
		if code == 0 || !strings.Contains(stderr, flag) || !strings.Contains(stderr, "--no-daemon") {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant a refusal naming %s and --no-daemon", args, code, stderr, flag)
		}
	}
}

// TestRun_NoDaemon: with nothing on the socket, run works in-process
// without a word about a daemon; jobs and cancel say how to start one.
func TestRun_NoDaemon(t *testing.T) {
	repo, cands := newShellRepo(t, 0)
	sock := filepath.Join(t.TempDir(), "none.sock")
	out, stderr, code := runCLI(t, "--repo", repo, "--candidates", cands, "--test", "sh test.sh", "--bench", "none",
		"--format", "json", "--socket", sock, "--sandbox", "off")
	if code != 0 || strings.Contains(stderr, "daemon") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	if v := verdictsOf(t, out); v["broken"] != "failed" {
		t.Errorf("verdicts = %v", v)
	}
	for _, args := range [][]string{{"jobs", "--socket", sock}, {"cancel", "x", "--socket", sock}} {
		_, stderr, code := runCLI(t, args...)
		if code != exitError || !strings.Contains(stderr, "optimizer daemon") {
			t.Errorf("%v: exit %d, stderr %q; want 1 and how to start a daemon", args, code, stderr)
		}
	}
}

// TestRun_ThroughDaemonBench: the same through the benchmark phase.
func TestRun_ThroughDaemonBench(t *testing.T) {
	testenv.Once(t)
	repo, cands := newShellRepo(t, 0)
	sock := startTestDaemon(t)
	args := []string{"--repo", repo, "--candidates", cands, "--test", "sh test.sh", "--bench", "sh bench.sh",
		"--max-pairs", "20", "--format", "json", "--socket", sock, "--sandbox", "off", "--fail-on-regression"}
	local, _, localCode := runCLI(t, append(args, "--no-daemon")...)
	remote, stderr, remoteCode := runCLI(t, args...)
	if localCode != remoteCode {
		t.Errorf("exit %d through the daemon, %d in-process\n%s", remoteCode, localCode, stderr)
	}
	lv, rv := verdictsOf(t, local), verdictsOf(t, remote)
	if lv["fast"] != "winner" || rv["fast"] != "winner" {
		t.Errorf("fast: %s in-process, %s through the daemon; want winner", lv["fast"], rv["fast"])
	}
}

// TestWatch_ThroughDaemon: with a daemon on the socket, each save is a job
// of the watch's session there. A newer save cancels the older one's job
// (its test killed), and the lines are the same as in-process.
func TestWatch_ThroughDaemon(t *testing.T) {
	repo := newWatchRepo(t)
	sock := startTestDaemon(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	o := shellWatch(t, repo, "sh test.sh "+pidFile)
	o.Socket = sock
	w := startWatch(t, o)
	if !strings.Contains(w.stderr.String(), "on the daemon") {
		t.Fatalf("the watch does not go through the daemon:\n%s", w.stderr.String())
	}
	writeWatchFiles(t, repo, map[string]string{"a.txt": "slow\n"})
	pid := waitPID(t, w, pidFile)
	writeWatchFiles(t, repo, map[string]string{"a.txt": "quick\n"})
	first, second := w.record(), w.record()
	if first.State != "interrupted" || !strings.Contains(first.Summary, "newer save") {
		t.Errorf("first record: state %s, %q; want interrupted by a newer save", first.State, first.Summary)
	}
	if second.State != "finished" || second.Verdict != evaluator.VerdictPassed {
		t.Errorf("second record: state %s, verdict %s; want finished, passed", second.State, second.Verdict)
	}
	waitDead(t, pid)
	if err := w.stop(); err != nil {
		t.Fatalf("watch returned %v, want nil", err)
	}
	list, err := client.New(sock).Jobs(context.Background(), client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var states []string
	for _, j := range list.Jobs { // newest first
		states = append(states, j.State)
	}
	if len(states) != 2 || states[0] != "finished" || states[1] != "cancelled" {
		t.Errorf("the daemon's jobs (newest first): %v, want finished after cancelled", states)
	}
	jobs := watchJobs(t, watchStorePath(t, repo))
	if len(jobs) != 2 || jobs[0].State != "interrupted" || jobs[1].State != "finished" || jobs[0].Kind != "watch" {
		t.Errorf("the repository's store: %v, want one interrupted, then one finished, kind watch", watchJobStates(jobs))
	}
}

// TestRun_ThroughDaemonInterrupted: Ctrl-C on a run that went to a daemon
// cancels its job there. The test process is killed, the job is cancelled,
// and the run exits as an interrupted in-process run does.
func TestRun_ThroughDaemonInterrupted(t *testing.T) {
	repo, _ := newShellRepo(t, 0)
	sock := startTestDaemon(t)
	marks := t.TempDir()
	cands := filepath.Join(t.TempDir(), "c.jsonl")
	os.WriteFile(cands, []byte(`{"name": "slow", "files": {"cand": "1\n"}}`+"\n"), 0o644)
	test := `if [ -f cand ]; then echo $$ > ` + marks + `/pid; exec sleep 300; fi; true`
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--repo", repo, "--candidates", cands, "--test", test, "--bench", "none",
			"--socket", sock, "--sandbox", "off", "--format", "json"}, &stdout, &stderr)
	}()
	var pid int
	deadline := time.Now().Add(2 * time.Minute)
	for pid == 0 {
		b, _ := os.ReadFile(filepath.Join(marks, "pid"))
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		if time.Now().After(deadline) {
			t.Fatalf("the candidate's test never started:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond) // polling a file another process writes
	}
	cancel() // Ctrl-C
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the run did not return after its context was cancelled")
	}
	if !errors.Is(err, errInterrupted) {
		t.Errorf("run returned %v, want interrupted", err)
	}
	if !strings.Contains(stderr.String(), "on the daemon (job ") {
		t.Fatalf("the run did not go to the daemon:\n%s", stderr.String())
	}
	if syscall.Kill(pid, 0) == nil {
		t.Errorf("the cancelled job's test process %d still runs", pid)
	}
	list, lerr := client.New(sock).Jobs(context.Background(), client.ListOptions{})
	if lerr != nil || len(list.Jobs) != 1 || list.Jobs[0].State != "cancelled" {
		t.Errorf("the daemon's jobs: %+v (%v), want one cancelled", list.Jobs, lerr)
	}
	if v := verdictsOf(t, stdout.String()); v["slow"] != "pending" {
		t.Errorf("the partial report's verdicts: %v, want slow pending", v)
	}
}

// TestWatch_DaemonSpec: a watch's job on a daemon has the spec that run
// sends for the same flags and one candidate, whatever -j says. Only its
// quick look differs: the quick budget, and quick set.
func TestWatch_DaemonSpec(t *testing.T) {
	flags := []string{"--test", "make check", "--min-speedup", "7.5", "--timeout", "90s", "--bench-budget", "2m",
		"--env", "MYAPP_*", "--no-cache", "--tags", "noasm"}
	for _, j := range [][]string{nil, {"-j", "0"}, {"-j", "3"}} {
		args := append(slices.Clone(flags), j...)
		ro, wo := defaultRunOptions(), watchOptions{runOptions: defaultRunOptions()}
		for _, o := range []*runOptions{&ro, &wo.runOptions} {
			fs := pflag.NewFlagSet("optimizer", pflag.ContinueOnError)
			o.register(fs)
			if err := fs.Parse(args); err != nil {
				t.Fatal(err)
			}
		}
		wo.Kind = "watch"
		cands := []candidate.Candidate{{Name: "tree", Patch: []byte("x")}}
		req, err := ro.jobRequest(jobPlan{repo: gitcmd.Repo{Root: t.TempDir()}, base: "abc", cands: cands})
		if err != nil {
			t.Fatal(err)
		}
		job := watch.Job{Head: "abc", Cands: cands, Test: wo.Test}
		if got := wo.watchSpec(job); !reflect.DeepEqual(got, req.Options) {
			t.Errorf("%v: watch sends %+v, run %+v", j, got, req.Options)
		}
		job.Budget, job.Quick = 15*time.Second, true
		want := req.Options
		want.BenchBudget, want.Quick = jobspec.Duration(15*time.Second), true
		if got := wo.watchSpec(job); !reflect.DeepEqual(got, want) {
			t.Errorf("%v, quick: watch sends %+v, want %+v", j, got, want)
		}
	}
}
