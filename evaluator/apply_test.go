package evaluator

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
)

// TestKept_ApplyToTree runs a job that keeps its candidates' changes, reads
// each back, checks it against its content id, and writes it into the
// user's tree: a patch, and whole files with a deletion. A kept change edited after the job
// is refused, and so is a tree with changes to the candidate's paths. The
// index and refs are never touched.
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
		dir, err := ArtifactsDir(j, artifacts)
		if err != nil {
			t.Fatal(err)
		}
		c, err := KeptChange(j, dir, name)
		if err != nil {
			t.Fatal(err)
		}
		if err := VerifyKept(ctx, h.db, j, h.repo, c); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := ApplyToTree(ctx, h.repo, c); err != nil {
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
	c, err := KeptChange(j, artifacts, "patched")
	if err != nil {
		t.Fatal(err)
	}
	if err := ApplyToTree(ctx, h.repo, c); err == nil || !strings.Contains(err.Error(), "has changes to ok") {
		t.Errorf("ApplyToTree over an edited ok = %v, want refused", err)
	}

	// A kept change altered after the job is not what was evaluated.
	c.Patch = []byte("--- a/ok\n+++ b/ok\n@@ -1 +1,2 @@\n yes\n+# something else\n")
	if err := VerifyKept(ctx, h.db, j, h.repo, c); err == nil || !strings.Contains(err.Error(), "altered after the job") {
		t.Errorf("VerifyKept of an altered change = %v, want refused", err)
	}
}
