package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// noisyBench is a bench command whose one metric is drawn at random over a
// wide range. No verdict settles in a few pairs, so a candidate takes every
// pair its budget allows.
const noisyBench = `echo "BenchmarkNoise 1 $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') ns/op"`

// holdMachine holds the machine lock in dir from a pool of this process on a
// repository of its own, exclusively or shared, until release is called.
// It returns that repository's root.
func holdMachine(t *testing.T, lock string, exclusive bool) (root string, release func()) {
	t.Helper()
	repo, _ := newShellRepo(t, 0)
	head := strings.TrimSpace(git(t, repo, "rev-parse", "HEAD"))
	ctx := context.Background()
	p, err := worktreepool.Open(ctx, worktreepool.Options{Repo: repo, Base: head, Size: 1, MachineLock: lock})
	if err != nil {
		t.Fatal(err)
	}
	var held []*worktreepool.Slot
	if exclusive {
		held, err = p.AcquireExclusive(ctx)
	} else {
		var s *worktreepool.Slot
		s, err = p.Acquire(ctx)
		held = []*worktreepool.Slot{s}
	}
	if err != nil {
		t.Fatal(err)
	}
	released := false
	release = func() {
		if released {
			return
		}
		released = true
		for _, s := range held {
			p.Release(s)
		}
		p.Close(ctx)
	}
	t.Cleanup(release)
	abs, _ := filepath.Abs(repo)
	return abs, release
}

// startOptimizer starts the CLI in a child process with TMPDIR at tmp, so
// that its machine lock is tmp/optimizer-machine.lock. It returns the
// first stderr line that matches waitFor, the rest of stderr and stdout
// once it exits, and its error.
func startOptimizer(t *testing.T, tmp, waitFor string, args ...string) (line string, finish func() (stderr, stdout string, err error)) {
	t.Helper()
	bin, err := exec.LookPath("optimizer")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			lines <- sc.Text() + "\n"
		}
	}()
	var seen strings.Builder
	deadline := time.After(2 * time.Minute)
	for line == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				cmd.Wait()
				t.Fatalf("optimizer never said %q; its stderr:\n%s", waitFor, seen.String())
			}
			seen.WriteString(l)
			if strings.Contains(l, waitFor) {
				line = l
			}
		case <-deadline:
			cmd.Process.Kill()
			t.Fatalf("optimizer said nothing like %q in 2 minutes; its stderr:\n%s", waitFor, seen.String())
		}
	}
	return line, func() (string, string, error) {
		for l := range lines {
			seen.WriteString(l)
		}
		err := cmd.Wait()
		return seen.String(), stdout.String(), err
	}
}

// TestRun_WaitsForTheMachine: a job that waits for the machine lock says
// who holds it, on its progress lines and in -v. A benchmark's budget and
// time start only once it holds the machine, and the wait is reported
// apart.
func TestRun_WaitsForTheMachine(t *testing.T) {
	testenv.Long(t)
	t.Run("ByABenchmark", func(t *testing.T) {
		// As in the issue: a --bench none job behind another optimizer's benchmark.
		tmp := t.TempDir()
		other, release := holdMachine(t, filepath.Join(tmp, "optimizer-machine.lock"), true)
		repo, cands := newShellRepo(t, 0)
		line, finish := startOptimizer(t, tmp, "waiting for the machine",
			"--repo", repo, "--candidates", cands, "--test", "sh test.sh", "--bench", "none", "-j", "1", "--format", "json")
		want := fmt.Sprintf("waiting for the machine: optimizer pid %d is benchmarking %s, since ", os.Getpid(), other)
		if !strings.Contains(line, want) {
			t.Errorf("progress line %q, want it to say %q", line, want)
		}
		release()
		stderr, stdout, err := finish()
		if err != nil {
			t.Fatalf("optimizer: %v\n%s", err, stderr)
		}
		if rep := decodeJSONReport(t, stdout); rep.State != "finished" {
			t.Errorf("job %s, want finished", rep.State)
		}
		if !strings.Contains(stderr, "the machine is free") {
			t.Errorf("the end of the wait went unsaid:\n%s", stderr)
		}
	})

	t.Run("ByNotAnOptimizer", func(t *testing.T) {
		bin, err := exec.LookPath("flock")
		if err != nil {
			t.Skip("flock (util-linux) is not installed")
		}
		tmp := t.TempDir()
		holder := exec.Command(bin, filepath.Join(tmp, "optimizer-machine.lock"), "sh", "-c", "echo locked; exec cat")
		in, _ := holder.StdinPipe()
		out, _ := holder.StdoutPipe()
		if err := holder.Start(); err != nil {
			t.Fatal(err)
		}
		defer holder.Wait()
		defer in.Close()
		if l, _ := bufio.NewReader(out).ReadString('\n'); l != "locked\n" {
			t.Fatalf("flock said %q", l)
		}
		repo, cands := newShellRepo(t, 0)
		want := fmt.Sprintf("pid %d (flock) holds the lock and left no holder record: it is not an optimizer", holder.Process.Pid)
		line, finish := startOptimizer(t, tmp, "level=INFO msg=\"waiting for the machine",
			"--repo", repo, "--candidates", cands, "--test", "sh test.sh", "--bench", "none", "-j", "1", "-v")
		if !strings.Contains(line, want) {
			t.Errorf("-v line %q, want it to say %q", line, want)
		}
		in.Close()
		stderr, _, err := finish()
		if err != nil {
			t.Fatalf("optimizer: %v\n%s", err, stderr)
		}
		if !strings.Contains(stderr, "] waiting for the machine: "+want) {
			t.Errorf("no progress line says %q:\n%s", want, stderr)
		}
	})

	t.Run("BudgetStartsWhenHeld", func(t *testing.T) {
		// Another optimizer's tests hold the machine shared: this job's
		// tests run beside them, its benchmark waits. The wait is longer
		// than the budget; the budget must still buy every pair.
		const budget = 6 * time.Second
		tmp := t.TempDir()
		_, release := holdMachine(t, filepath.Join(tmp, "optimizer-machine.lock"), false)
		repo, _ := newShellRepo(t, 0)
		cands := filepath.Join(t.TempDir(), "cands.jsonl")
		os.WriteFile(cands, []byte(`{"name": "same", "files": {"n": "1\n"}}`+"\n"), 0o644)
		_, finish := startOptimizer(t, tmp, "waiting for the machine",
			"--repo", repo, "--candidates", cands, "--test", "sh test.sh", "--bench", noisyBench, "--no-profile",
			"-j", "1", "--min-pairs", "2", "--max-pairs", "4", "--bench-budget", budget.String(), "--format", "json")
		held := time.Now()
		time.Sleep(budget) // keep the machine for longer than the budget: the wait is the scenario, not a synchronisation
		release()
		heldFor := time.Since(held).Seconds()
		stderr, stdout, err := finish()
		if err != nil {
			t.Fatalf("optimizer: %v\n%s", err, stderr)
		}
		var rep struct {
			Candidates []struct {
				Name        string  `json:"name"`
				Pairs       int     `json:"pairs"`
				Note        string  `json:"note"`
				WaitSeconds float64 `json:"wait_seconds"`
			} `json:"candidates"`
		}
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil || len(rep.Candidates) != 1 {
			t.Fatalf("report: %v\n%s\n%s", err, stdout, stderr)
		}
		c := rep.Candidates[0]
		if c.Pairs != 4 {
			t.Errorf("%s: %d pairs (%s), want all 4: the wait for the machine ate the budget", c.Name, c.Pairs, c.Note)
		}
		if c.WaitSeconds < heldFor {
			t.Errorf("%s: wait_seconds %.1f, want at least the %.1fs the machine was held from it", c.Name, c.WaitSeconds, heldFor)
		}
	})
}
