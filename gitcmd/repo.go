package gitcmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// Repo is the user's repository, as the optimizer needs to know it: where
// its working tree is, and where the optimizer keeps its own files in it.
type Repo struct {
	Root      string // the working tree's top directory
	CommonDir string // the git common dir: .git of the main worktree
}

// FindRepo finds the repository that dir is in. It reads only.
func FindRepo(ctx context.Context, dir string) (Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Repo{}, err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return Repo{}, fmt.Errorf("not a git repository: %s (no such directory)", abs)
	}
	out, err := readOutput(ctx, abs, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir")
	lines := strings.Split(out, "\n")
	if err != nil || len(lines) != 2 {
		return Repo{}, fmt.Errorf("not a git repository: %s", abs)
	}
	return Repo{Root: lines[0], CommonDir: lines[1]}, nil
}

// OptimizerDir is where the optimizer keeps its store, slots and artifacts.
func (r Repo) OptimizerDir() string { return filepath.Join(r.CommonDir, "optimizer") }

// StorePath is the store file: path if given, else the default in
// OptimizerDir.
func (r Repo) StorePath(path string) string {
	if path != "" {
		return path
	}
	return filepath.Join(r.OptimizerDir(), "optimizer.db")
}

// ArtifactsDir is the parent of every job's artifacts directory; the
// evaluator adds the job id.
func (r Repo) ArtifactsDir() string { return filepath.Join(r.OptimizerDir(), "artifacts") }

// Resolve resolves rev to a commit, with go-git. Revisions go-git cannot
// parse (such as @{upstream}) are asked of git rev-parse.
func (r Repo) Resolve(ctx context.Context, rev string) (string, error) {
	g, err := gogit.PlainOpenWithOptions(r.Root, &gogit.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		return "", fmt.Errorf("open repository %s: %w", r.Root, err)
	}
	if h, err := g.ResolveRevision(plumbing.Revision(rev)); err == nil {
		return h.String(), nil
	}
	if _, err := g.Head(); errors.Is(err, plumbing.ErrReferenceNotFound) {
		return "", fmt.Errorf("the repository %s has no commits yet: commit the code the candidates change first", r.Root)
	}
	if !strings.HasPrefix(rev, "-") {
		if out, err := r.Output(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}"); err == nil {
			return out, nil
		}
	}
	return "", fmt.Errorf("unknown base revision %q", rev)
}

// Output runs a read-only git command (ReadOnly: the tree is the user's) at
// the root and returns its stdout without surrounding space.
func (r Repo) Output(ctx context.Context, args ...string) (string, error) {
	return readOutput(ctx, r.Root, args...)
}

func readOutput(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := Run(ctx, Cmd{Dir: dir, Args: args, ReadOnly: true})
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}
