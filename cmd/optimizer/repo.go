package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/optimizer-dev/optimizer/gitcmd"
)

// repo is the user's repository, as the commands need to know it.
type repo struct {
	Root      string // the working tree's top directory
	CommonDir string // the git common dir: .git of the main worktree
}

// findRepo finds the repository that dir is in. It reads only.
func findRepo(ctx context.Context, dir string) (repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return repo{}, err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return repo{}, fmt.Errorf("not a git repository: %s (no such directory)", abs)
	}
	out, err := gitOutput(ctx, abs, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir")
	lines := strings.Split(out, "\n")
	if err != nil || len(lines) != 2 {
		return repo{}, fmt.Errorf("not a git repository: %s", abs)
	}
	return repo{Root: lines[0], CommonDir: lines[1]}, nil
}

// optimizerDir is where optimizer keeps its store, slots and artifacts.
func (r repo) optimizerDir() string { return filepath.Join(r.CommonDir, "optimizer") }

// storePath is the store file: flag if given, else the default.
func (r repo) storePath(flag string) string {
	if flag != "" {
		return flag
	}
	return filepath.Join(r.optimizerDir(), "optimizer.db")
}

// artifactsDir is the parent of every job's artifacts directory; the
// evaluator adds the job id.
func (r repo) artifactsDir() string { return filepath.Join(r.optimizerDir(), "artifacts") }

// resolve resolves rev to a commit, with go-git. Revisions go-git cannot
// parse (such as @{upstream}) are asked of git rev-parse.
func (r repo) resolve(ctx context.Context, rev string) (string, error) {
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
		if out, err := gitOutput(ctx, r.Root, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}"); err == nil {
			return out, nil
		}
	}
	return "", fmt.Errorf("unknown base revision %q", rev)
}

// gitOutput runs a read-only git command in dir and returns its trimmed
// stdout; the error carries git's stderr.
func gitOutput(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := gitcmd.Run(ctx, gitcmd.Cmd{Dir: dir, Args: args, ReadOnly: true})
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}
