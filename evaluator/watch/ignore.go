package watch

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// gitEnv keeps git's reads from refreshing or locking the user's index.
var gitEnv = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")

// ignoredDirs lists the directories git ignores in the tree at root, in one
// call, so the first walk need not ask about each directory.
func ignoredDirs(root string) map[string]bool {
	cmd := exec.Command("git", "-C", root, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory")
	cmd.Env = gitEnv
	out, err := cmd.Output()
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
func ignoredByGit(root, p string) bool {
	cmd := exec.Command("git", "-C", root, "check-ignore", "-q", "--", p)
	cmd.Env = gitEnv
	return cmd.Run() == nil
}

// gitDir returns the git directory of the working tree at root: root/.git,
// or for a linked worktree its directory under the common dir. It returns ""
// when git cannot say.
func gitDir(root string) string {
	cmd := exec.Command("git", "-C", root, "rev-parse", "--absolute-git-dir")
	cmd.Env = gitEnv
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
