package watch

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
)

// IsOwn reports whether slash path p, relative to a working tree's root, is
// the optimizer's own rather than the user's work. Own paths are config
// (the configuration file's name), anything named .optimizer* at the root,
// and what is at or under one of own (slash paths relative to the root).
func IsOwn(p, config string, own []string) bool {
	if p == config || strings.HasPrefix(p, ".optimizer") {
		return true
	}
	for _, o := range own {
		if p == o || p == o+"/" || strings.HasPrefix(p, o+"/") {
			return true
		}
	}
	return false
}

// Rel turns absolute or relative paths (candidates, a store) into slash
// paths relative to root, leaving out those outside it. A path's directory
// is taken with its symbolic links resolved, as root's is.
func Rel(root string, paths []string) []string {
	var out []string
	for _, p := range paths {
		a, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		if dir, err := filepath.EvalSymlinks(filepath.Dir(a)); err == nil {
			a = filepath.Join(dir, filepath.Base(a))
		}
		if rel, err := filepath.Rel(root, a); err == nil && filepath.IsLocal(rel) {
			out = append(out, filepath.ToSlash(rel))
		}
	}
	return out
}

// Dirty lists the working tree's uncommitted changes that are the user's
// work, as slash paths relative to root, sorted. They are tracked edits,
// staged changes and untracked files (an untracked folder once, as "dir/").
// Paths own reports (nil is none) and untracked editors' temporary files
// (Ignored) are left out. It never writes to the repository: git is asked
// not to refresh the index.
func Dirty(ctx context.Context, root string, own func(path string) bool) ([]string, error) {
	out, err := readGit(ctx, root, "status", "--porcelain=v1", "-z", "--untracked-files=normal", "--no-renames")
	if err != nil {
		return nil, err
	}
	var files []string
	for _, rec := range strings.Split(string(out), "\x00") {
		if len(rec) < 4 {
			continue
		}
		xy, p := rec[:2], rec[3:]
		if (own != nil && own(p)) || (xy == "??" && Ignored(strings.TrimSuffix(p, "/"))) {
			continue
		}
		files = append(files, p)
	}
	slices.Sort(files)
	return files, nil
}
