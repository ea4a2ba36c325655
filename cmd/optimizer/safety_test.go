package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/internal/testenv"
)

// jsonReport is the part of the JSON report these tests read.
type jsonReport struct {
	Job        string  `json:"job"`
	Winner     *string `json:"winner"`
	State      string  `json:"state"`
	Candidates []struct {
		Name    string `json:"name"`
		Verdict string `json:"verdict"`
		Failure *struct {
			Kind    string `json:"kind"`
			Message string `json:"message"`
		} `json:"failure"`
	} `json:"candidates"`
}

func decodeJSONReport(t *testing.T, out string) jsonReport {
	t.Helper()
	var rep jsonReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, out)
	}
	return rep
}

// linkedWorktrees lists the linked worktrees of repo.
func linkedWorktrees(t *testing.T, repo string) []string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(git(t, repo, "worktree", "list", "--porcelain"), "\n") {
		if p, ok := strings.CutPrefix(l, "worktree "); ok && filepath.Clean(p) != filepath.Clean(repo) {
			out = append(out, p)
		}
	}
	return out
}

// TestTwoProcessesOneRepo runs two optimizers on one repository and one
// store at once: they never share a slot, and both finish correctly.
func TestTwoProcessesOneRepo(t *testing.T) {
	testenv.Long(t)
	bin, err := exec.LookPath("optimizer")
	if err != nil {
		t.Fatal(err)
	}
	repo, cands := newShellRepo(t, 6)
	before := snapshot(t, repo)
	var cmds [2]*exec.Cmd
	var outs, errs [2]bytes.Buffer
	for i := range cmds {
		cmds[i] = exec.Command(bin, "--repo", repo, "--candidates", cands, "-j", "3", "--format", "json",
			"--test", "sh test.sh", "--bench", "sh bench.sh", "--no-profile", "--max-pairs", "8", "--timeout", "2m",
			// A sandbox adds ~10 ms (more under this load) to each sample of
			// both sides. That pulls fast's 30 ms / 5 ms sleeps toward 1x, and
			// with two jobs at once, within 8 pairs, can leave it not-faster.
			// This test is about two processes; see docs/speed.md.
			"--sandbox", "off")
		cmds[i].Stdout = &outs[i]
		cmds[i].Stderr = &errs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("optimizer %d: %v\n%s", i, err, errs[i].String())
		}
	}
	for i := range outs {
		rep := decodeJSONReport(t, outs[i].String())
		if rep.Winner == nil || *rep.Winner != "fast" || rep.State != "finished" {
			winner := "none"
			if rep.Winner != nil {
				winner = *rep.Winner
			}
			t.Errorf("optimizer %d: winner %s, state %s; report:\n%s", i, winner, rep.State, outs[i].String())
		}
		for _, c := range rep.Candidates {
			// The others change nothing that is measured: they pass, and
			// any speed verdict is noise, rarely anything but not-faster.
			switch {
			case c.Name == "fast" && c.Verdict != "winner",
				c.Name == "broken" && c.Verdict != "failed",
				c.Name != "fast" && c.Name != "broken" && c.Verdict == "failed":
				t.Errorf("optimizer %d: %s is %s", i, c.Name, c.Verdict)
			}
		}
	}
	if l := linkedWorktrees(t, repo); len(l) != 0 {
		t.Errorf("worktrees left: %v", l)
	}
	if diff := before.diff(snapshot(t, repo)); diff != "" {
		t.Errorf("the repository changed:\n%s", diff)
	}
	out := runOK(t, exitOK, "history", "--repo", repo)
	if strings.Count(out, "finished") != 2 {
		t.Errorf("history does not show two finished jobs:\n%s", out)
	}
}

// TestBadCandidates runs a job of candidates that try to write outside the
// tree, or cannot be applied. Each fails with kind apply and a message
// naming what is wrong. The good one still wins, and nothing is written
// outside the slots.
func TestBadCandidates(t *testing.T) {
	repo, _ := newShellRepo(t, 0)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(repo, "out")); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "add", "out")
	git(t, repo, "commit", "-q", "-m", "a symlink out of the tree")
	git(t, repo, "reset", "-q", "--soft", "HEAD") // keep the test repo's index as it was
	cands := t.TempDir()
	write := func(name, data string) {
		p := filepath.Join(cands, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("good/cand", "1\n")
	write("good/speed", "0.01\n")
	write("malformed.patch", "this is no diff\n")
	write("stale.patch", "--- a/ok\n+++ b/ok\n@@ -1 +1 @@\n-no such line\n+yes\n")
	write("dotdot.patch", "--- /dev/null\n+++ b/../escaped\n@@ -0,0 +1 @@\n+x\n")
	write("absolute.patch", "--- /dev/null\n+++ "+filepath.Join(outside, "abs")+"\n@@ -0,0 +1 @@\n+x\n")
	write("intogit.patch", "--- /dev/null\n+++ b/.git/hooks/post-checkout\n@@ -0,0 +1 @@\n+x\n")
	write("throughlink.patch", "--- /dev/null\n+++ b/out/pwned\n@@ -0,0 +1 @@\n+x\n")
	write("binary.patch", "diff --git a/bin b/bin\nnew file mode 100644\nindex 0000000..e69de29\nGIT binary patch\nliteral 3\nKcmZ?wY5)KL\n\nliteral 0\nHcmV?d00001\n\n")
	write("jsonl.jsonl", `{"name": "jdotdot", "files": {"../escaped": "x"}}
{"name": "jgit", "files": {".git/config": "x"}}
{"name": "jabs", "files": {"/etc/passwd": "x"}}
{"name": "jlink", "files": {"out/pwned": "x"}}
`)
	if err := os.Symlink(outside, filepath.Join(cands, "linkdir")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(cands, "treelink"), 0o755)
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(cands, "treelink", "cand")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644)
	big := bytes.Repeat([]byte("x"), 50<<20+1)
	if err := os.WriteFile(filepath.Join(cands, "huge", "cand"), big, 0o644); err != nil {
		os.MkdirAll(filepath.Join(cands, "huge"), 0o755)
		if err := os.WriteFile(filepath.Join(cands, "huge", "cand"), big, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := snapshot(t, repo)
	outsideBefore := listTree(t, outside)
	parentBefore := listTree(t, filepath.Dir(repo))

	// No benchmark: the point is which candidates are refused. Good's speed
	// under a busy machine's load is no part of it: 20 on 2 CPUs left it
	// not-faster even at 20 pairs.
	out := runOK(t, exitOK, "--repo", repo, "--candidates", cands, "-j", "2", "--format", "json",
		"--test", "sh test.sh", "--bench", "none")
	rep := decodeJSONReport(t, out)
	want := map[string]string{ // candidate -> a word its message must hold
		"malformed": "diff", "stale": "ok", "dotdot": "..", "absolute": "abs", "intogit": ".git",
		"throughlink": "out", "binary": "binary", "jdotdot": "..", "jgit": ".git", "jabs": "/etc/passwd",
		"jlink": "out", "treelink": "symlink", "huge": "MB",
	}
	got := map[string]bool{}
	for _, c := range rep.Candidates {
		got[c.Name] = true
		if c.Name == "good" {
			if c.Verdict != "passed" {
				t.Errorf("good: %s, want passed", c.Verdict)
			}
			continue
		}
		word, ok := want[c.Name]
		if !ok {
			continue
		}
		if c.Verdict != "failed" || c.Failure == nil || c.Failure.Kind != "apply" {
			t.Errorf("%s: %s %+v, want failed with kind apply", c.Name, c.Verdict, c.Failure)
			continue
		}
		if !strings.Contains(strings.ToLower(c.Failure.Message), strings.ToLower(word)) {
			t.Errorf("%s: message %q does not say %q", c.Name, c.Failure.Message, word)
		}
	}
	for name := range want {
		if !got[name] {
			t.Errorf("candidate %s is missing from the report", name)
		}
	}
	if diff := before.diff(snapshot(t, repo)); diff != "" {
		t.Errorf("the repository changed:\n%s", diff)
	}
	if after := listTree(t, outside); after != outsideBefore {
		t.Errorf("something was written through the symlink:\n%s", after)
	}
	if after := listTree(t, filepath.Dir(repo)); after != parentBefore {
		t.Errorf("something was written beside the repository:\n%s", after)
	}
}

// listTree lists the paths under dir, outside any .git.
func listTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		b.WriteString(p + "\n")
		return nil
	})
	return b.String()
}

// TestRepoShapes runs jobs on a shallow clone and on a repository with a
// submodule: both work, and neither repository changes.
func TestRepoShapes(t *testing.T) {
	src, cands := newShellRepo(t, 0)
	git(t, src, "stash", "drop", "-q")
	t.Run("Shallow", func(t *testing.T) {
		shallow := filepath.Join(t.TempDir(), "shallow")
		git(t, src, "clone", "-q", "--depth", "1", "file://"+src, shallow)
		before := snapshot(t, shallow)
		rep := decodeJSONReport(t, runOK(t, exitOK, "--repo", shallow, "--candidates", cands, "-j", "2",
			"--format", "json", "--test", "sh test.sh", "--bench", "none"))
		if v := verdictOf(rep, "fast"); v != "passed" {
			t.Errorf("fast: %s", v)
		}
		if diff := before.diff(snapshot(t, shallow)); diff != "" {
			t.Errorf("the shallow clone changed:\n%s", diff)
		}
	})
	t.Run("Submodule", func(t *testing.T) {
		sub, _ := newShellRepo(t, 0)
		super, _ := newShellRepo(t, 0)
		git(t, super, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "vendor/sub")
		git(t, super, "commit", "-q", "-m", "add a submodule")
		before := snapshot(t, super)
		subBefore := git(t, super, "submodule", "status")
		rep := decodeJSONReport(t, runOK(t, exitOK, "--repo", super, "--candidates", cands, "-j", "2",
			"--format", "json", "--test", "sh test.sh", "--bench", "none"))
		if v := verdictOf(rep, "fast"); v != "passed" {
			t.Errorf("fast: %s", v)
		}
		if diff := before.diff(snapshot(t, super)); diff != "" {
			t.Errorf("the repository changed:\n%s", diff)
		}
		if got := git(t, super, "submodule", "status"); got != subBefore {
			t.Errorf("submodule status changed: %q, was %q", got, subBefore)
		}
		if l := linkedWorktrees(t, super); len(l) != 0 {
			t.Errorf("worktrees left: %v", l)
		}
	})
}

func verdictOf(rep jsonReport, name string) string {
	for _, c := range rep.Candidates {
		if c.Name == name {
			return c.Verdict
		}
	}
	return ""
}

// TestSlotMemory caps each test process: a candidate whose test takes
// 512 MB fails under --slot-memory 256M and passes without it.
func TestSlotMemory(t *testing.T) {
	repo, _ := newShellRepo(t, 0)
	cands := filepath.Join(t.TempDir(), "c.jsonl")
	os.WriteFile(cands, []byte(`{"name": "hog", "files": {"test.sh": "dd if=/dev/zero of=/dev/null bs=512M count=1\n"}}`+"\n"), 0o644)
	for _, tt := range []struct {
		args []string
		want string
	}{{[]string{"--slot-memory", "256M"}, "failed"}, {nil, "passed"}} {
		args := append([]string{"--repo", repo, "--candidates", cands, "-j", "1", "--format", "json",
			"--test", "sh test.sh", "--bench", "none"}, tt.args...)
		rep := decodeJSONReport(t, runOK(t, exitOK, args...))
		if v := verdictOf(rep, "hog"); v != tt.want {
			t.Errorf("%v: hog is %s, want %s", tt.args, v, tt.want)
		}
	}
	runOK(t, exitUsage, "--repo", repo, "--candidates", cands, "--slot-memory", "lots")
}
