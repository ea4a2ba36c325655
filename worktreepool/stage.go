package worktreepool

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Apply applies a unified diff to the slot's work tree with git apply, which
// applies all of it or nothing, and refuses paths outside the tree or behind
// a symlink. The index is left at base.
func (s *Slot) Apply(ctx context.Context, patch []byte) error {
	if _, err := s.git(ctx, patch, "apply", "--whitespace=nowarn", "-"); err != nil {
		return err
	}
	return nil
}

// WriteFiles writes whole files into the slot and deletes others: see the
// package's WriteFiles.
func (s *Slot) WriteFiles(files map[string][]byte, deleted []string) error {
	return WriteFiles(s.dir, files, deleted)
}

// WriteFiles writes whole files into the tree at dir and deletes others,
// deletions first, so a file may replace a deleted directory. It goes
// through os.Root, so that no path, symlink or "..", reaches outside.
// Paths are slash-separated and relative to dir; a path into .git is
// refused. Slots take candidates this way, and optimizer apply writes a
// kept change into the user's tree the same way.
func WriteFiles(dir string, files map[string][]byte, deleted []string) error {
	for p := range files {
		if err := checkPath(p); err != nil {
			return err
		}
	}
	for _, p := range deleted {
		if err := checkPath(p); err != nil {
			return err
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("open %s: %w", dir, err)
	}
	defer root.Close()
	for _, p := range deleted {
		if err := root.RemoveAll(filepath.FromSlash(p)); err != nil {
			return fmt.Errorf("delete %s: %w", p, err)
		}
	}
	for p, data := range files {
		name := filepath.FromSlash(p)
		if dir := filepath.Dir(name); dir != "." {
			if err := root.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("write %s: %w", p, err)
			}
		}
		if err := root.WriteFile(name, data, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
	}
	return nil
}

// checkPath refuses a path that is absolute, unclean, the slot's root
// itself, climbs out with "..", or goes into .git.
func checkPath(p string) error {
	if p == "" || p == "." || path.IsAbs(p) || strings.HasPrefix(p, `\`) || path.Clean(p) != p || strings.ContainsRune(p, 0) {
		return fmt.Errorf("%w: %q", ErrBadPath, p)
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." || strings.EqualFold(part, ".git") {
			return fmt.Errorf("%w: %q", ErrBadPath, p)
		}
	}
	return nil
}
