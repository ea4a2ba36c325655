package watch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
)

// Snapshot is the working tree's difference from HEAD at one moment.
type Snapshot struct {
	Head      string // the commit the difference is against
	Candidate candidate.Candidate
}

// Take snapshots the working tree at root: tracked edits, deletions, and
// untracked files that git does not ignore, read now, so that later edits
// don't leak into an evaluation. An untracked editor's temporary file (see
// Ignored) is left out. It never writes to the repository.
func Take(ctx context.Context, root, name string) (Snapshot, error) {
	head, err := gitOut(ctx, root, "rev-parse", "--verify", "HEAD")
	if err != nil {
		return Snapshot{}, fmt.Errorf("resolve HEAD: %w", err)
	}
	out, err := gitOut(ctx, root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames")
	if err != nil {
		return Snapshot{}, fmt.Errorf("read working tree status: %w", err)
	}
	c := candidate.Candidate{Name: name, Source: "working tree", Files: map[string][]byte{}}
	for _, rec := range strings.Split(out, "\x00") {
		if len(rec) < 4 {
			continue
		}
		xy, path := rec[:2], rec[3:]
		if xy == "??" && Ignored(path) {
			continue
		}
		full := filepath.Join(root, filepath.FromSlash(path))
		fi, err := os.Lstat(full)
		switch {
		case err != nil && os.IsNotExist(err):
			c.Deleted = append(c.Deleted, path)
		case err != nil:
			return Snapshot{}, fmt.Errorf("read %s: %w", path, err)
		case fi.IsDir():
			// a submodule or nested repo: not part of the candidate
		case fi.Mode()&os.ModeSymlink != 0:
			continue
		default:
			b, err := os.ReadFile(full)
			if err != nil {
				if os.IsNotExist(err) {
					c.Deleted = append(c.Deleted, path)
					continue
				}
				return Snapshot{}, fmt.Errorf("read %s: %w", path, err)
			}
			c.Files[path] = b
		}
	}
	slices.Sort(c.Deleted)
	return Snapshot{Head: head, Candidate: c}, nil
}

func gitOut(ctx context.Context, root string, args ...string) (string, error) {
	out, err := readGit(ctx, root, args...)
	return strings.TrimRight(string(out), "\n"), err
}
