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
