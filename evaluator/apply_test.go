package evaluator

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/evaluator/apply"
	"github.com/optimizer-dev/optimizer/evaluator/candidate"
)

// TestKept_ApplyToTree runs a job that keeps its candidates' changes, and
// reads each back. It checks each against its content id, and writes it
// into the user's tree: a patch, and whole files with a deletion. A kept
// change edited after the job is refused, and so is a tree with changes to
// the candidate's paths. The index and refs are never touched.
func TestKept_ApplyToTree(t *testing.T) {
	h := newHarness(t, map[string]string{"ok": "yes\n", "test.sh": "test \"$(cat ok)\" = yes\n", "dir/old.txt": "old\n"})
	ctx := context.Background()
	artifacts := t.TempDir()
	patch := candidate.Candidate{Name: "patched", Source: "test",
		Patch: []byte("--- a/ok\n+++ b/ok\n@@ -1 +1,2 @@\n yes\n+# patched\n")}
	whole := filesCand("whole", map[string]string{"new/file.txt": "new\n"})
	whole.Deleted = []string{"dir/old.txt"}
	rep, err := h.run(t, ctx, 1, Options{Candidates: []candidate.Candidate{patch, whole}, Test: "sh test.sh", Bench: "none",
		Artifacts: artifacts, Sandbox: SandboxOff})
	if err != nil {
		t.Fatal(err)
	}
	j, err := h.db.Job(ctx, rep.Job)
	if err != nil {
		t.Fatal(err)
	}
	refs := git(t, h.repo, "for-each-ref") + git(t, h.repo, "ls-files", "-s")

	for _, name := range []string{"patched", "whole"} {
		dir := apply.ArtifactsDir(j, t.TempDir()) // the recorded directory, not the fallback
		c, err := apply.KeptChange(j, dir, name)
		if err != nil {
			t.Fatal(err)
		}
		if err := apply.VerifyKept(ctx, h.db, j, h.repo, c); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := apply.ToTree(ctx, h.repo, c); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(h.repo, "ok")); string(b) != "yes\n# patched\n" {
		t.Errorf("ok = %q after the patch", b)
	}
	if b, _ := os.ReadFile(filepath.Join(h.repo, "new", "file.txt")); string(b) != "new\n" {
		t.Errorf("new/file.txt = %q, want the whole file", b)
	}
	if _, err := os.Stat(filepath.Join(h.repo, "dir", "old.txt")); !os.IsNotExist(err) {
		t.Errorf("dir/old.txt is still there (%v), want it deleted", err)
	}
	if after := git(t, h.repo, "for-each-ref") + git(t, h.repo, "ls-files", "-s"); after != refs {
		t.Errorf("refs or index changed:\n%s\nwant\n%s", after, refs)
	}

	// The tree now has changes to ok: applying again is refused.
	c, err := apply.KeptChange(j, artifacts, "patched")
	if err != nil {
		t.Fatal(err)
	}
	if err := apply.ToTree(ctx, h.repo, c); err == nil || !strings.Contains(err.Error(), "has changes to ok") {
		t.Errorf("ToTree over an edited ok = %v, want refused", err)
	}

	// A kept change altered after the job is not what was evaluated.
	c.Patch = []byte("--- a/ok\n+++ b/ok\n@@ -1 +1,2 @@\n yes\n+# something else\n")
	if err := apply.VerifyKept(ctx, h.db, j, h.repo, c); err == nil || !strings.Contains(err.Error(), "altered after the job") {
		t.Errorf("VerifyKept of an altered change = %v, want refused", err)
	}
}

// TestKept_ForgedChangeAndStore performs the attack of issue 33 item 6: a
// candidate rewrites its kept change and the store's content id to match.
// The content id check alone passes; the seal refuses. A change sealed
// under another key, or carrying no seal, is refused too.
func TestKept_ForgedChangeAndStore(t *testing.T) {
	h := newHarness(t, map[string]string{"ok": "yes\n", "test.sh": "test \"$(cat ok)\" = yes\n"})
	ctx := context.Background()
	artifacts := t.TempDir()
	good := filesCand("good", map[string]string{"notes.txt": "good\n"})
	rep, err := h.run(t, ctx, 1, Options{Candidates: []candidate.Candidate{good}, Test: "sh test.sh", Bench: "none",
		Artifacts: artifacts, Sandbox: SandboxOff})
	if err != nil {
		t.Fatal(err)
	}
	j, err := h.db.Job(ctx, rep.Job)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := apply.KeptChange(j, artifacts, "good"); err != nil {
		t.Fatalf("the untouched change: %v", err)
	}
	file := filepath.Join(artifacts, j.ID, "candidates", "good.json")
	key, err := apply.Key(false)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(mustKeyFile(t)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key file: %v, %v; want mode 0600", fi, err)
	}

	// The forgery: code never evaluated, in the kept file and in the store.
	evil := filesCand("good", map[string]string{"notes.txt": "never evaluated\n"})
	id, err := candidate.TreeID(ctx, h.repo, j.Base, evil)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := h.db.Candidates(ctx, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		if row.Name == "good" {
			row.ContentID = id
			if err := h.db.UpdateCandidate(ctx, row); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := apply.VerifyKept(ctx, h.db, j, h.repo, evil); err != nil {
		t.Fatalf("the forged store does not match the forged change (%v): the attack is not made", err)
	}
	other := make([]byte, apply.KeySize)
	for _, tt := range []struct {
		name string
		seal func(b []byte) string
		ok   bool
	}{
		{"NoSeal", func([]byte) string { return "" }, false},
		{"OldSeal", nil, false},
		{"OtherKey", func(b []byte) string { return apply.Seal(other, j.ID, b) }, false},
		{"OtherJob", func(b []byte) string { return apply.Seal(key, "another-job", b) }, false},
		// Only the key seals: a forger who could read it (no sandbox) passes.
		{"WithTheKey", func(b []byte) string { return apply.Seal(key, j.ID, b) }, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			old, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var ch apply.Change
			if err := json.Unmarshal(old, &ch); err != nil {
				t.Fatal(err)
			}
			seal := ch.Seal
			ch.Files, ch.Seal = map[string]string{"notes.txt": "never evaluated\n"}, ""
			b, _ := json.Marshal(ch)
			if tt.seal != nil {
				seal = tt.seal(b)
			}
			ch.Seal = seal
			b, _ = json.Marshal(ch)
			if err := os.WriteFile(file, b, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.WriteFile(file, old, 0o644) })
			c, err := apply.KeptChange(j, artifacts, "good")
			if tt.ok && (err != nil || string(c.Files["notes.txt"]) != "never evaluated\n") {
				t.Errorf("KeptChange sealed with the key = %+v, %v; want the sealed change", c, err)
			}
			if !tt.ok && (err == nil || !strings.Contains(err.Error(), "not applied")) {
				t.Errorf("KeptChange of the forgery = %+v, %v; want refused", c, err)
			}
		})
	}
}

func mustKeyFile(t *testing.T) string {
	t.Helper()
	p, err := apply.KeyFile()
	if err != nil {
		t.Fatal(err)
	}
	return p
}
