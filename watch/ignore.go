package watch

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"

	"github.com/optimizer-dev/optimizer/gitcmd"
)

// readGit runs a git command that reads the user's tree at root: it takes
// no optional locks, so it never refreshes or locks the user's index.
func readGit(ctx context.Context, root string, args ...string) ([]byte, error) {
	return gitcmd.Run(ctx, gitcmd.Cmd{Args: append([]string{"-C", root}, args...), ReadOnly: true})
}

// ignoredDirs lists the directories git ignores in the tree at root, in one
// call, so the first walk need not ask about each directory.
func ignoredDirs(ctx context.Context, root string) map[string]bool {
	out, err := readGit(ctx, root, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory")
	dirs := map[string]bool{}
	if err != nil {
		return dirs
	}
	for _, rel := range bytes.Split(out, []byte{0}) {
		s := string(rel)
		if strings.HasSuffix(s, "/") {
			dirs[filepath.Join(root, filepath.FromSlash(strings.TrimSuffix(s, "/")))] = true
		}
	}
	return dirs
}

// ignoredByGit asks git whether one path is ignored.
func ignoredByGit(ctx context.Context, root, p string) bool {
	_, err := readGit(ctx, root, "check-ignore", "-q", "--", p)
	return err == nil
}

// gitDir returns the git directory of the working tree at root: root/.git,
// or for a linked worktree its directory under the common dir. It returns ""
// when git cannot say.
func gitDir(ctx context.Context, root string) string {
	out, err := readGit(ctx, root, "rev-parse", "--absolute-git-dir")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
