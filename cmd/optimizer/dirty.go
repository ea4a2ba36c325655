package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/optimizer-dev/optimizer/evaluator/watch"
	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/report"
)

// dirtyFiles lists the working tree's uncommitted changes that are the
// user's work, as slash paths relative to the root, sorted: tracked edits,
// staged changes and untracked files (an untracked folder once, as
// "dir/"). optimizer's own files (optimizer.toml, .optimizer*, the
// candidates paths and store given) and editors' temporary files are left
// out. It never writes to the repository: git is asked not to refresh the
// index.
func dirtyFiles(ctx context.Context, r repo, own []string) ([]string, error) {
	out, err := gitcmd.Run(ctx, gitcmd.Cmd{Dir: r.Root, Args: []string{"status", "--porcelain=v1", "-z", "--untracked-files=normal", "--no-renames"},
		ReadOnly: true})
	if err != nil {
		return nil, err
	}
	var files []string
	for _, rec := range strings.Split(string(out), "\x00") {
		if len(rec) < 4 {
			continue
		}
		xy, p := rec[:2], rec[3:]
		if isOwnPath(p, own) || (xy == "??" && watch.Ignored(strings.TrimSuffix(p, "/"))) {
			continue
		}
		files = append(files, p)
	}
	slices.Sort(files)
	return files, nil
}

// isOwnPath reports whether slash path p, relative to the root, is
// optimizer's: optimizer.toml, anything named .optimizer* at the root, or
// under one of own.
func isOwnPath(p string, own []string) bool {
	if p == configFile || strings.HasPrefix(p, ".optimizer") {
		return true
	}
	for _, o := range own {
		if p == o || p == o+"/" || strings.HasPrefix(p, o+"/") {
			return true
		}
	}
	return false
}

// ownRel turns absolute or relative paths of optimizer's (candidates, a
// store) into slash paths relative to root, leaving out those outside it.
func ownRel(root string, paths []string) []string {
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

// warnDirty says once, on stderr, that the working tree has uncommitted
// changes, which are not part of the base: candidates are compared against
// the base commit alone. A tree whose status cannot be read says nothing.
func warnDirty(ctx context.Context, r repo, o runOptions, base string, stderr io.Writer) {
	own := append(append([]string{}, o.Candidates...), o.DB)
	files, err := dirtyFiles(ctx, r, ownRel(r.Root, own))
	if err != nil || len(files) == 0 {
		return
	}
	fmt.Fprintf(stderr, "optimizer: warning: the working tree has uncommitted changes (%s) that are not part of the base %s (%s): candidates are compared against that commit alone; commit them first, or use optimizer watch to evaluate them\n",
		report.ListSome(files, 3), o.Base, report.ShortHash(base))
}
