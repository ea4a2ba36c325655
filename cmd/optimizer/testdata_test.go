package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/optimizer-dev/optimizer/testdata"
)

// TestDemoCandidates checks the committed demo set against a fresh fixture
// repo: every patch applies, and fast_again is exactly fast's result. The
// testdata package has no tests of its own (go test ./... skips it).
func TestDemoCandidates(t *testing.T) {
	ctx := context.Background()
	repoDir, candDir := t.TempDir(), t.TempDir()
	if err := testdata.WriteFixture(repoDir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(repoDir, "go.mod")); err != nil {
		t.Fatalf("WriteFixture wrote no go.mod: %v", err)
	}
	if _, err := testdata.InitRepo(ctx, repoDir); err != nil {
		t.Fatal(err)
	}
	if err := testdata.WriteDemoCandidates(candDir); err != nil {
		t.Fatal(err)
	}
	for _, c := range testdata.DemoCandidates {
		if _, err := os.Stat(filepath.Join(candDir, c.Path)); err != nil {
			t.Errorf("demo candidate %s: %v", c.Name, err)
		}
		if filepath.Ext(c.Path) != ".patch" {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			cmd := exec.Command("git", "apply", "--check", filepath.Join(candDir, c.Path))
			cmd.Dir = repoDir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("git apply --check %s: %v\n%s", c.Path, err, out)
			}
		})
	}

	cmd := exec.Command("git", "apply", filepath.Join(candDir, "fast.patch"))
	cmd.Dir = repoDir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git apply fast.patch: %v\n%s", err, out)
	}
	got, err := os.ReadFile(filepath.Join(repoDir, "sumsq", "sumsq.go"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(candDir, "fast_again", "sumsq", "sumsq.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("fast_again/sumsq/sumsq.go is not what fast.patch produces")
	}
}

// TestWriteDemo: the demo's repository is committed, its candidates are
// beside it when asked for, and an existing directory is never written
// over.
func TestWriteDemo(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	d, err := testdata.WriteDemo(ctx, dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "-C", d.Repo, "status", "--porcelain").Output(); err != nil || len(out) != 0 {
		t.Errorf("the demo repository is not committed clean: %q, %v", out, err)
	}
	if _, err := os.Stat(d.Candidates); !os.IsNotExist(err) {
		t.Errorf("candidates written without being asked for: %v", err)
	}
	if _, err := testdata.WriteDemo(ctx, dir, true); !errors.Is(err, testdata.ErrExists) {
		t.Errorf("WriteDemo over an existing demo = %v, want ErrExists", err)
	}
	d, err = testdata.WriteDemo(ctx, t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(d.Candidates, "fast.patch")); err != nil {
		t.Errorf("the demo candidates: %v", err)
	}
}
