package worktreepool

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// repair rewrites the slot's .git file, which a test may have deleted or
// changed. It fails when the slot's directory or git directory is gone.
func (s *Slot) repair() error {
	if fi, err := os.Stat(s.dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("slot %s: its directory is gone", s.name)
	}
	if _, err := os.Stat(filepath.Join(s.gitDir, "HEAD")); err != nil {
		return fmt.Errorf("slot %s: its git directory is gone", s.name)
	}
	want := "gitdir: " + s.gitDir + "\n"
	dotGit := filepath.Join(s.dir, ".git")
	if b, err := os.ReadFile(dotGit); err == nil && string(b) == want {
		return nil
	}
	if err := os.RemoveAll(dotGit); err != nil {
		return fmt.Errorf("repair slot %s: %w", s.name, err)
	}
	if err := os.WriteFile(dotGit, []byte(want), 0o644); err != nil {
		return fmt.Errorf("repair slot %s: %w", s.name, err)
	}
	return nil
}

// readGitFile returns the git directory a worktree's .git file points to.
func readGitFile(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, ".git"))
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	gd, ok := strings.CutPrefix(line, "gitdir: ")
	if !ok {
		return "", fmt.Errorf("%s/.git is not a gitdir file", dir)
	}
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(dir, gd)
	}
	return filepath.Clean(gd), nil
}
