package worktreepool

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Changes reads what differs in the slot's work tree from its base: the
// content of every changed or new file (ignored files aside), and the paths
// deleted. It is how a program that edits files in place, such as an agent
// run in the slot, becomes a candidate. Paths are slash-separated and
// relative to the slot's root; a symlink is read as the file it names is
// not, but refused.
func (s *Slot) Changes(ctx context.Context) (files map[string][]byte, deleted []string, err error) {
	out, err := s.git(ctx, nil, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames")
	if err != nil {
		return nil, nil, fmt.Errorf("read changes in slot %s: %w", s.name, err)
	}
	files = map[string][]byte{}
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) < 4 {
			continue
		}
		code, path := string(rec[:2]), string(rec[3:])
		if strings.Contains(code, "D") {
			deleted = append(deleted, path)
			continue
		}
		full := filepath.Join(s.dir, filepath.FromSlash(path))
		fi, err := os.Lstat(full)
		if err != nil {
			return nil, nil, fmt.Errorf("read changes in slot %s: %w", s.name, err)
		}
		if !fi.Mode().IsRegular() {
			return nil, nil, fmt.Errorf("read changes in slot %s: %s is not a regular file", s.name, path)
		}
		b, err := os.ReadFile(full)
		if err != nil {
			return nil, nil, fmt.Errorf("read changes in slot %s: %w", s.name, err)
		}
		files[path] = b
	}
	return files, deleted, nil
}
