package testdata

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrExists is WriteDemo's refusal to write over a directory that exists.
var ErrExists = errors.New("already exists")

// A DemoDir is where WriteDemo wrote the demo: the fixture repository,
// committed, and the demo candidates beside it.
type DemoDir struct {
	Repo       string // dir/repo
	Candidates string // dir/candidates; written only when asked for
}

// WriteDemo writes the fixture module to dir/repo and commits it
// (WriteFixture, InitRepo), then, with candidates, the demo candidate set to
// dir/candidates. It writes nothing when either directory exists already:
// the error wraps ErrExists.
func WriteDemo(ctx context.Context, dir string, candidates bool) (DemoDir, error) {
	d := DemoDir{Repo: filepath.Join(dir, "repo"), Candidates: filepath.Join(dir, "candidates")}
	for _, p := range []string{d.Repo, d.Candidates} {
		if _, err := os.Stat(p); err == nil {
			return DemoDir{}, fmt.Errorf("%s %w", p, ErrExists)
		}
	}
	if err := WriteFixture(d.Repo); err != nil {
		return DemoDir{}, fmt.Errorf("write demo repo: %w", err)
	}
	if _, err := InitRepo(ctx, d.Repo); err != nil {
		return DemoDir{}, fmt.Errorf("commit demo repo: %w", err)
	}
	if candidates {
		if err := WriteDemoCandidates(d.Candidates); err != nil {
			return DemoDir{}, fmt.Errorf("write demo candidates: %w", err)
		}
	}
	return d, nil
}
