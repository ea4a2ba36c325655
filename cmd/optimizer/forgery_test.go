package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/internal/testenv"
)

// The tests of issue 20: faults that let a candidate, the environment or
// the tool itself forge a verdict.

// newTinyRepo makes a shell repository whose test passes while ok says yes,
// and a directory of n candidates that each add a comment to notes.txt.
func newTinyRepo(t *testing.T, test string, n int) (repo, cands string) {
	t.Helper()
	dir := t.TempDir()
	repo = filepath.Join(dir, "repo")
	cands = filepath.Join(dir, "cands")
	for p, s := range map[string]string{
		"ok":        "yes\n",
		"notes.txt": "a\n",
		"test.sh":   test,
	} {
		writeFile(t, filepath.Join(repo, p), s)
	}
	git(t, repo, "init", "-q", "-b", "main")
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "base")
	for i := range n {
		writeFile(t, filepath.Join(cands, "c"+string(rune('a'+i)), "notes.txt"), strings.Repeat("x", i+1)+"\n")
	}
	return repo, cands
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// tinyFS mounts a tmpfs of size bytes for the test, and unmounts it after.
func tinyFS(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root (CI runs as root)")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Fatalf("mount a tmpfs: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return dir
}

// TestStoreFull fills the store's disk while the job runs (the test command
// does it, after the job is recorded). The run still prints its report, but
// warns that the store could not record it and exits 1.
func TestStoreFull(t *testing.T) {
	fs := tinyFS(t, "2m")
	fill := filepath.Join(fs, "fill")
	repo, cands := newTinyRepo(t, `[ -f "`+fill+`" ] || dd if=/dev/zero of="`+fill+`" bs=64k 2>/dev/null
test "$(cat ok)" = yes
`, 4)
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"--repo", repo, "--candidates", cands, "-j", "1", "--bench", "none",
		"--test", "sh test.sh", "--db", filepath.Join(fs, "optimizer.db"),
		"--sandbox", "off"}, &stdout, &stderr) // the test fills the store's disk, which a sandbox hides
	if got := exitCode(err); got != exitError {
		t.Errorf("exit %d (%v), want %d\nstderr:\n%s", got, err, exitError, stderr.String())
	}
	if !strings.Contains(stderr.String(), "warning: the store could not record this job's results") {
		t.Errorf("no warning on stderr:\n%s", stderr.String())
	}
	if !strings.Contains(stdout.String(), "ca ") || !strings.Contains(stdout.String(), "the store could not record") {
		t.Errorf("the report lacks the candidates or the warning:\n%s", stdout.String())
	}
}

// TestOversubscribedTimeouts runs more slots than CPUs, with a test that
// passes alone but runs past --timeout when another test holds its lock.
// Every candidate that timed out is re-run alone, and passes. The run warns
// that timeouts mean less.
func TestOversubscribedTimeouts(t *testing.T) {
	testenv.Once(t)
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("needs flock (util-linux)")
	}
	lock := filepath.Join(t.TempDir(), "lock")
	repo, cands := newTinyRepo(t, `exec 9>>"`+lock+`"
sleep 1
if flock -n 9; then sleep 1; else sleep 60; fi
test "$(cat ok)" = yes
`, runtime.NumCPU()+2)
	j := strconv.Itoa(runtime.NumCPU() + 2)
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"--repo", repo, "--candidates", cands, "-j", j, "--bench", "none",
		"--test", "sh test.sh", "--timeout", "6s", "--format", "json",
		"--sandbox", "off"}, &stdout, &stderr) // the tests share a lock file outside the slots, which a sandbox hides
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "slots on "+strconv.Itoa(runtime.NumCPU())+" CPUs") {
		t.Errorf("no warning of oversubscription:\n%s", stderr.String())
	}
	var rep struct {
		Warnings   []string `json:"warnings"`
		Candidates []struct {
			Name, Verdict, Note string
		} `json:"candidates"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, stdout.String())
	}
	rerun := 0
	for _, c := range rep.Candidates {
		if c.Verdict != "passed" {
			t.Errorf("%s: %s, want passed\n%s", c.Name, c.Verdict, stderr.String())
		}
		if strings.Contains(c.Note, "re-run alone") {
			rerun++
		}
	}
	if rerun == 0 {
		t.Errorf("no candidate timed out beside another, so nothing was tested:\n%s", stderr.String())
	}
	if len(rep.Warnings) > 0 {
		t.Errorf("warnings: %q", rep.Warnings)
	}
}

// TestPIDReuse kills an optimizer mid-job, then has an unrelated process
// take its PID (through ns_last_pid, as root). The job is still found dead
// and shown interrupted, since its owner's start time was recorded with its
// PID.
func TestPIDReuse(t *testing.T) {
	testenv.Once(t)
	if os.Geteuid() != 0 {
		t.Skip("forcing a PID's reuse needs root (CI runs as root)")
	}
	bin, err := exec.LookPath("optimizer")
	if err != nil {
		t.Fatal(err)
	}
	mark := t.TempDir()
	repo, cands := newTinyRepo(t, `if [ -n "$HANG" ]; then : > "$HANG/at"; exec sleep 300; fi
test "$(cat ok)" = yes
`, 1)
	// The test marks its point in a file outside the slot, which a sandbox hides.
	cmd := exec.Command(bin, "--repo", repo, "--candidates", cands, "-j", "1", "--bench", "none", "--test", "sh test.sh", "--sandbox", "off")
	cmd.Env = append(os.Environ(), "HANG="+mark)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer runOK(t, exitOK, "gc", "--repo", repo) // kills the hanging test the killed run left
	waitFile(t, filepath.Join(mark, "at"))
	cmd.Process.Kill()
	cmd.Wait()

	impostor := takePID(t, cmd.Process.Pid)
	defer func() { impostor.Process.Kill(); impostor.Wait() }()
	out := runOK(t, exitOK, "history", "--repo", repo)
	if !strings.Contains(out, "interrupted") {
		t.Errorf("the killed run's job is not interrupted while PID %d is another process's:\n%s", cmd.Process.Pid, out)
	}
}

// waitFile polls for a file that a child process writes, for up to two
// minutes.
func waitFile(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
	}
	t.Fatalf("%s never appeared", path)
}

// takePID starts a sleep whose PID is pid, by setting the kernel's last PID
// just below it. Other processes fork meanwhile, so it tries many times.
func takePID(t *testing.T, pid int) *exec.Cmd {
	t.Helper()
	for range 500 {
		if err := os.WriteFile("/proc/sys/kernel/ns_last_pid", []byte(strconv.Itoa(pid-1)), 0); err != nil {
			t.Skipf("set ns_last_pid: %v", err)
		}
		cmd := exec.Command("sleep", "300")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if cmd.Process.Pid == pid {
			return cmd
		}
		cmd.Process.Kill()
		cmd.Wait()
	}
	t.Fatalf("could not start a process with PID %d", pid)
	return nil
}

// TestSignalExitStatus stops a running job with SIGINT, then another with
// SIGTERM: each exits 128 plus the signal's number, as a shell reports it,
// with the job recorded interrupted.
func TestSignalExitStatus(t *testing.T) {
	bin, err := exec.LookPath("optimizer")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		sig  syscall.Signal
		want int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(tt.sig.String(), func(t *testing.T) {
			mark := t.TempDir()
			repo, cands := newTinyRepo(t, `if [ -n "$HANG" ]; then : > "$HANG/at"; exec sleep 300; fi
test "$(cat ok)" = yes
`, 1)
			// The test marks its point in a file outside the slot, which a sandbox hides.
			cmd := exec.Command(bin, "--repo", repo, "--candidates", cands, "-j", "1", "--bench", "none", "--test", "sh test.sh", "--sandbox", "off")
			cmd.Env = append(os.Environ(), "HANG="+mark)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitFile(t, filepath.Join(mark, "at"))
			cmd.Process.Signal(tt.sig)
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tt.want {
				t.Errorf("after %v: %v, want exit status %d\n%s", tt.sig, err, tt.want, stderr.String())
			}
			if out := runOK(t, exitOK, "history", "--repo", repo); !strings.Contains(out, "interrupted") {
				t.Errorf("the job is not recorded interrupted:\n%s", out)
			}
		})
	}
}

// TestStoreInWords points --db at a directory, a store on a read-only file
// system and a full disk. Each says what is wrong in words, and history
// still reads the read-only store.
func TestStoreInWords(t *testing.T) {
	repo, cands := newTinyRepo(t, "test \"$(cat ok)\" = yes\n", 1)
	job := func(db string) []string {
		return []string{"--repo", repo, "--candidates", cands, "-j", "1", "--bench", "none", "--test", "sh test.sh", "--db", db}
	}
	failsWith := func(t *testing.T, args []string, want string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), args, &stdout, &stderr)
		if exitCode(err) != exitError || !strings.Contains(stderr.String(), want) {
			t.Errorf("optimizer %s: %v; want exit 1 and %q in stderr:\n%s", strings.Join(args, " "), err, want, stderr.String())
		}
	}
	t.Run("Directory", func(t *testing.T) {
		failsWith(t, job(t.TempDir()), "is a directory, not a store file: --db names the store's file")
	})
	t.Run("ReadOnly", func(t *testing.T) {
		fs := tinyFS(t, "4m")
		db := filepath.Join(fs, "optimizer.db")
		runOK(t, exitOK, job(db)...)
		if out, err := exec.Command("mount", "-o", "remount,ro", fs).CombinedOutput(); err != nil {
			t.Fatalf("remount read-only: %v\n%s", err, out)
		}
		if out := runOK(t, exitOK, "history", "--repo", repo, "--db", db); !strings.Contains(out, "finished") {
			t.Errorf("history of a read-only store:\n%s", out)
		}
		failsWith(t, job(db), "read-only file system")
	})
	t.Run("FullDisk", func(t *testing.T) {
		fs := tinyFS(t, "1m")
		exec.Command("dd", "if=/dev/zero", "of="+filepath.Join(fs, "fill"), "bs=64k").Run()
		failsWith(t, job(filepath.Join(fs, "optimizer.db")), "no space left on device")
	})
}

// TestFewerSlots makes every git worktree add after the first fail. The job
// runs on the one slot it has, and its report says 1 slot, not the 2 asked
// for, with a warning.
func TestFewerSlots(t *testing.T) {
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	once := filepath.Join(t.TempDir(), "once")
	writeFile(t, filepath.Join(bin, "git"), `#!/bin/sh
case " $* " in *" worktree add "*) mkdir "`+once+`" 2>/dev/null || { echo "fatal: no more worktrees" >&2; exit 128; };; esac
exec `+real+` "$@"
`)
	os.Chmod(filepath.Join(bin, "git"), 0o755)
	repo, cands := newTinyRepo(t, "test \"$(cat ok)\" = yes\n", 3)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out := runOK(t, exitOK, "--repo", repo, "--candidates", cands, "-j", "2", "--bench", "none", "--test", "sh test.sh")
	if !regexp.MustCompile(`, 1 slots?,`).MatchString(out) || !strings.Contains(out, "only 1 of the 2 slots asked for could be made") {
		t.Errorf("the report does not say the job ran on 1 slot of 2:\n%s", out)
	}
	for _, c := range []string{"ca", "cb", "cc"} {
		if !regexp.MustCompile(`(?m)^` + c + ` +passed`).MatchString(out) {
			t.Errorf("%s did not pass:\n%s", c, out)
		}
	}
}
