package demo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/testdata"
)

func TestDir_WriteOutro(t *testing.T) {
	for _, tt := range []struct {
		name string
		kept bool
		want []string
	}{
		{"Deleted", false, []string{"/tmp/optimizer-demo-1 is deleted now", "optimizer demo --keep"}},
		{"Kept", true, []string{"kept in /tmp/optimizer-demo-1/repo", "optimizer history --repo /tmp/optimizer-demo-1/repo"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			d := Dir{DemoDir: testdata.DemoDir{Repo: "/tmp/optimizer-demo-1/repo"}, Path: "/tmp/optimizer-demo-1", Kept: tt.kept}
			d.WriteOutro(&b)
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("outro lacks %q:\n%s", w, b.String())
				}
			}
		})
	}
}

// TestDir_WriteIntro: the intro names where the demo is, every candidate
// with the verdict it is there to show, and the hanging one's timeout.
func TestDir_WriteIntro(t *testing.T) {
	var b strings.Builder
	Dir{DemoDir: testdata.DemoDir{Repo: "/d/repo", Candidates: "/d/candidates"}}.WriteIntro(&b)
	want := []string{"committed in /d/repo, and six candidate changes in /d/candidates", "  CANDIDATE   EXPECTED   WHAT IT DOES", "killed at the 15s timeout"}
	for _, c := range testdata.DemoCandidates {
		want = append(want, c.Name, c.About)
	}
	for _, w := range want {
		if !strings.Contains(b.String(), w) {
			t.Errorf("intro lacks %q:\n%s", w, b.String())
		}
	}
}

// TestWrite: without a directory, the demo goes to a temporary one that
// Remove deletes unless it is kept; a given directory is kept, and one
// that holds a demo already is refused.
func TestWrite(t *testing.T) {
	ctx := context.Background()
	t.Setenv("TMPDIR", t.TempDir())
	for _, keep := range []bool{false, true} {
		d, err := Write(ctx, "", keep, false)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(d.Repo, ".git")); err != nil || d.Kept != keep {
			t.Fatalf("keep %v: repo %s (%v), kept %v", keep, d.Repo, err, d.Kept)
		}
		if _, err := os.Stat(d.Candidates); !os.IsNotExist(err) {
			t.Errorf("candidates written without being asked: %v", err)
		}
		d.Remove()
		if _, err := os.Stat(d.Path); os.IsNotExist(err) == keep {
			t.Errorf("keep %v: after Remove, %s: %v", keep, d.Path, err)
		}
	}

	dir := t.TempDir()
	d, err := Write(ctx, dir, false, true)
	if err != nil {
		t.Fatal(err)
	}
	d.Remove()
	if _, err := os.Stat(d.Candidates); err != nil || !d.Kept {
		t.Errorf("a given directory was not kept: %v", err)
	}
	if _, err := Write(ctx, dir, false, true); !errors.Is(err, testdata.ErrExists) {
		t.Errorf("a second demo in %s: %v, want ErrExists", dir, err)
	}
}
