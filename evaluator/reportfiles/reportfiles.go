// Package reportfiles finds and reads the report files a test or bench
// command writes into its copy of the tree: JUnit XML, or a benchmark
// tool's results. Paths and globs are relative to the repository root, as
// each slot holds its own copy of the tree. A report is removed before each
// run, so that a stale or staged file is never read.
package reportfiles

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
)

// ErrPath is the error of a --test-report or --bench-report path that
// cannot name a file in the slot.
var ErrPath = errors.New("bad report path")

// MaxBytes bounds the bytes read of one report file.
const MaxBytes = 64 << 20

// Pattern checks one report path or glob: relative to the repository root
// and inside it. It returns the path cleaned, with slashes.
func Pattern(p string) (string, error) {
	clean := path.Clean(strings.ReplaceAll(p, `\`, "/"))
	switch {
	case p == "" || path.IsAbs(p):
		return "", fmt.Errorf("%w %q: want a path relative to the repository root (each candidate runs in its own copy of the tree)", ErrPath, p)
	case clean == ".." || strings.HasPrefix(clean, "../"):
		return "", fmt.Errorf("%w %q: the path leaves the repository", ErrPath, p)
	}
	if _, err := path.Match(clean, ""); err != nil {
		return "", fmt.Errorf("%w %q: %v", ErrPath, p, err)
	}
	return clean, nil
}

// Patterns returns a job's report patterns, checked: those given by flag,
// else those detected in its command. A given pattern that is bad is an
// error naming flag; a detected one is dropped, and the job does without.
func Patterns(given, detected []string, flag string) ([]string, error) {
	pats := given
	if len(given) == 0 {
		pats = detected
	}
	var out []string
	for _, p := range pats {
		clean, err := Pattern(p)
		if err != nil {
			if len(given) == 0 {
				continue
			}
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
		out = append(out, clean)
	}
	return out, nil
}

// Clear removes the files in dir that the patterns match.
func Clear(dir string, pats []string) error {
	if len(pats) == 0 {
		return nil
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, p := range pats {
		matches, _ := fs.Glob(root.FS(), p)
		for _, m := range matches {
			if err := root.Remove(m); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("remove the old test report %s: %w", m, err)
			}
		}
	}
	return nil
}

// Match lists the files of root that the patterns match, sorted, once each.
func Match(root *os.Root, pats []string) []string {
	var files []string
	for _, p := range pats {
		m, _ := fs.Glob(root.FS(), p)
		files = append(files, m...)
	}
	slices.Sort(files)
	return slices.Compact(files)
}

// ReadCapped reads a regular file of root, refusing one over limit bytes.
func ReadCapped(root *os.Root, name string, limit int64) ([]byte, error) {
	f, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	switch {
	case err != nil:
		return nil, err
	case !st.Mode().IsRegular():
		return nil, errors.New("not a regular file")
	case st.Size() > limit:
		return nil, fmt.Errorf("%d bytes, over the limit of %d", st.Size(), limit)
	}
	var b bytes.Buffer
	_, err = b.ReadFrom(f)
	return b.Bytes(), err
}
