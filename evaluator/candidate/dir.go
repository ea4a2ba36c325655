package candidate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// treeFile is one file found in a candidate directory.
type treeFile struct {
	path string // slash path relative to the candidate directory
	from string // where to read it (a symlink's target)
}

// loadTree reads the candidate directory dir as whole files laid over the
// repo by relative path. escape, if set, is why dir itself (a symlink) is
// refused. Only an I/O error is returned; a problem with the files is the
// candidate's Invalid, and then Files is left empty.
func (lim limit) loadTree(dir, name, source string, escape error) (Candidate, error) {
	c := Candidate{Name: name, Source: source}
	if escape != nil {
		c.Invalid = invalid(source, escape)
		return c, nil
	}
	files, problem, err := lim.scanTree(dir)
	if err != nil {
		return c, fmt.Errorf("read candidates: %w", err)
	}
	if problem == nil && len(files) == 0 {
		problem = fmt.Errorf("%w: the directory holds no files", ErrEmpty)
	}
	if problem != nil {
		c.Invalid = invalid(source, problem)
		return c, nil
	}
	c.Files = make(map[string][]byte, len(files))
	for _, f := range files {
		b, err := os.ReadFile(f.from)
		if err != nil {
			return c, fmt.Errorf("read candidates: %w", err)
		}
		c.Files[f.path] = b
	}
	c.Invalid = invalid(source, lim.check(c))
	if c.Invalid != nil && errors.Is(c.Invalid, ErrTooLarge) {
		c.Files = nil // grew while being read
	}
	return c, nil
}

// scanTree lists the files under dir without reading them. It stops at the
// first problem: a .git directory, a symlink that leaves dir, dangles or
// points to a directory, a special file, or more than MaxBytes in all.
func (lim limit) scanTree(dir string) (files []treeFile, problem, err error) {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, nil, err
	}
	var total int64
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == root {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		slash := filepath.ToSlash(rel)
		if problem = ValidatePath(slash); problem != nil {
			return filepath.SkipAll
		}
		from := p
		switch {
		case d.IsDir():
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			if problem = checkLink(root, p, slash); problem != nil {
				return filepath.SkipAll
			}
			if from, err = filepath.EvalSymlinks(p); err != nil {
				return err
			}
		case !d.Type().IsRegular():
			problem = fmt.Errorf("%w: %s is a device, socket or pipe", ErrNotRegular, slash)
			return filepath.SkipAll
		}
		fi, err := os.Stat(from)
		switch {
		case err != nil:
			return err
		case fi.IsDir():
			problem = fmt.Errorf("%w: %s points to a directory; only links to files are followed", ErrSymlink, slash)
			return filepath.SkipAll
		case !fi.Mode().IsRegular():
			problem = fmt.Errorf("%w: %s is a device, socket or pipe", ErrNotRegular, slash)
			return filepath.SkipAll
		}
		if total += fi.Size(); total > int64(lim) {
			problem = lim.tooLarge(total)
			return filepath.SkipAll
		}
		files = append(files, treeFile{path: slash, from: from})
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return files, problem, nil
}
