package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/optimizer-dev/optimizer/store"
)

// TestShow_OldDaemonID: a job of an older daemon had a queue id (d2026...)
// apart from its run's id in the repository's store. The show command takes
// either, asking the daemon for the run of the first.
func TestShow_OldDaemonID(t *testing.T) {
	bin, err := exec.LookPath("optimizer") // the test binary, set up by testscript.Main
	if err != nil {
		t.Fatal(err)
	}
	repo, cands := newShellRepo(t, 0)
	out, err := exec.Command(bin, "run", "--no-daemon", "--repo", repo, "--candidates", cands,
		"--test", "sh test.sh", "--bench", "none", "--sandbox", "off").CombinedOutput()
	if err != nil {
		t.Fatalf("optimizer run: %v\n%s", err, out)
	}
	ctx := context.Background()
	rdb, err := store.Open(ctx, filepath.Join(repo, ".git", "optimizer", "optimizer.db"))
	if err != nil {
		t.Fatal(err)
	}
	runs, err := rdb.Jobs(ctx, 1)
	rdb.Close()
	if err != nil || len(runs) != 1 {
		t.Fatalf("the repository's store: %d runs, %v", len(runs), err)
	}
	runID := runs[0].ID

	// The queue of an older daemon that ran it.
	state := t.TempDir()
	const oldID = "d20260101-000000-0123456789ab"
	qdb, err := store.Open(ctx, filepath.Join(state, "daemon.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := qdb.Enqueue(ctx, store.QueuedJob{ID: oldID, Repo: repo, Base: runs[0].Base, Request: []byte("{}")}); err != nil {
		t.Fatal(err)
	}
	if err := qdb.SetRunID(ctx, oldID, runID); err != nil {
		t.Fatal(err)
	}
	if err := qdb.EndQueued(ctx, oldID, store.QueueFinished, "", nil); err != nil {
		t.Fatal(err)
	}
	qdb.Close()

	mark := t.TempDir()
	sockDir, err := os.MkdirTemp("", "odo")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(sockDir)
	sock := filepath.Join(sockDir, "d.sock")
	d := startKillDaemon(t, bin, sock, state, mark, filepath.Join(mark, "machine.lock"), nil, 2)
	defer func() {
		d.cmd.Process.Signal(syscall.SIGTERM)
		<-d.done
	}()
	for _, id := range []string{oldID, runID} {
		show := exec.Command(bin, "show", id)
		show.Dir = repo
		show.Env = append(os.Environ(), "OPTIMIZER_SOCKET="+sock)
		out, err := show.CombinedOutput()
		if err != nil || !strings.Contains(string(out), runID) || !strings.Contains(string(out), "broken") {
			t.Errorf("optimizer show %s: %v\n%s", id, err, out)
		}
	}
}
