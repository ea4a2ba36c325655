package candidate

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Load reads the candidates at path: one .patch or .diff file, or one
// .jsonl file. It may also be a directory holding any mix of NAME.patch and
// NAME.diff files, NAME/ directories of whole files, and .jsonl files. The
// order is the directory's, sorted by entry name, with a JSONL file's
// candidates in line order at its place. See the package documentation for
// what is ignored and what is refused.
//
// Load returns an error, and no candidates, when the job cannot start. That
// is when path or an entry in it cannot be read, or it holds no candidate
// (ErrNoCandidates). It is also when a JSONL line is malformed
// (*SyntaxError), or two candidates share a name (ErrDuplicateName). A
// candidate that is unacceptable in itself is returned with Invalid set.
func Load(path string) ([]Candidate, error) { return limit(MaxBytes).load(path) }

// LoadAll reads the candidates of a job: those at each of paths (Load),
// then one per git ref in refs. A ref's candidate is FromRef's, the change
// from base to the ref in the repository at repoDir. It checks that names
// are unique across all of them (CheckNames). The first error stops it.
func LoadAll(ctx context.Context, repoDir, base string, paths, refs []string) ([]Candidate, error) {
	var all []Candidate
	for _, p := range paths {
		cs, err := Load(p)
		if err != nil {
			return nil, err // it says what to fix, and where
		}
		all = append(all, cs...)
	}
	for _, ref := range refs {
		c, err := FromRef(ctx, repoDir, base, ref)
		if err != nil {
			return nil, err
		}
		all = append(all, c)
	}
	if err := CheckNames(all); err != nil {
		return nil, err
	}
	return all, nil
}

func (lim limit) load(path string) ([]Candidate, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read candidates: %w", err)
	}
	var cands []Candidate
	var ignored []string
	if fi.IsDir() {
		cands, ignored, err = lim.loadDir(path)
	} else {
		cands, err = lim.loadFile(path)
	}
	if err != nil {
		return nil, err
	}
	if len(cands) == 0 {
		return nil, noCandidates(path, fi.IsDir(), ignored)
	}
	if err := CheckNames(cands); err != nil {
		return nil, err
	}
	return cands, nil
}

// Candidate kinds, by file extension (case-insensitive).
const (
	kindOther = iota
	kindPatch
	kindJSONL
)

func classify(name string) (kind int, base string) {
	ext := filepath.Ext(name)
	switch strings.ToLower(ext) {
	case ".patch", ".diff":
		kind = kindPatch
	case ".jsonl":
		kind = kindJSONL
	}
	return kind, strings.TrimSuffix(name, ext)
}

// loadFile reads a candidates path that is a single file.
func (lim limit) loadFile(path string) ([]Candidate, error) {
	kind, name := classify(filepath.Base(path))
	switch kind {
	case kindPatch:
		c, err := lim.loadPatch(path, name, path)
		return []Candidate{c}, err
	case kindJSONL:
		return lim.loadJSONL(path)
	}
	return nil, fmt.Errorf("read candidates: %s is not a .patch, .diff or .jsonl file, nor a directory", path)
}

func (lim limit) loadJSONL(path string) ([]Candidate, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read candidates: %w", err)
	}
	defer f.Close()
	return lim.parseJSONL(f, path)
}

// loadDir reads a directory of candidates, and returns the names of the
// entries it ignored.
func (lim limit) loadDir(dir string) ([]Candidate, []string, error) {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("read candidates: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("read candidates: %w", err)
	}
	var cands []Candidate
	var ignored []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue // hidden: .git, .DS_Store, editor files
		}
		full := filepath.Join(dir, name)
		fi, err := os.Stat(full) // follows a symlink
		if err != nil {
			return nil, nil, fmt.Errorf("read candidates: %w", err)
		}
		kind, base := classify(name)
		var escape error
		if e.Type()&fs.ModeSymlink != 0 {
			escape = checkLink(root, full, name)
		}
		switch {
		case fi.IsDir():
			c, err := lim.loadTree(full, name, full+string(filepath.Separator), escape)
			if err != nil {
				return nil, nil, err
			}
			cands = append(cands, c)
		case !fi.Mode().IsRegular() || kind == kindOther:
			ignored = append(ignored, name)
		case kind == kindPatch && escape != nil:
			cands = append(cands, Candidate{Name: base, Source: full, Invalid: invalid(full, escape)})
		case kind == kindPatch:
			c, err := lim.loadPatch(full, base, full)
			if err != nil {
				return nil, nil, err
			}
			cands = append(cands, c)
		case escape != nil: // a JSONL file: no candidate to mark
			return nil, nil, fmt.Errorf("read candidates: %w", escape)
		default:
			cs, err := lim.loadJSONL(full)
			if err != nil {
				return nil, nil, err
			}
			cands = append(cands, cs...)
		}
	}
	return cands, ignored, nil
}

// checkLink refuses a symlink at full whose target is outside root (both
// resolved). rel names the link in the message.
func checkLink(root, full, rel string) error {
	target, err := filepath.EvalSymlinks(full)
	if err != nil {
		return fmt.Errorf("%w: %s points to nothing (%v)", ErrSymlink, rel, err)
	}
	if !within(root, target) {
		return fmt.Errorf("%w: %s points outside the candidate directory, to %s", ErrSymlink, rel, target)
	}
	return nil
}

func within(root, target string) bool {
	rel, err := filepath.Rel(root, target)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

// loadPatch reads one patch file. Only an I/O error is returned; a problem
// with the patch is the candidate's Invalid.
func (lim limit) loadPatch(path, name, source string) (Candidate, error) {
	c := Candidate{Name: name, Source: source}
	fi, err := os.Stat(path)
	if err != nil {
		return c, fmt.Errorf("read candidates: %w", err)
	}
	if fi.Size() > int64(lim) {
		c.Invalid = invalid(source, lim.tooLarge(fi.Size()))
		return c, nil
	}
	if c.Patch, err = os.ReadFile(path); err != nil {
		return c, fmt.Errorf("read candidates: %w", err)
	}
	c.Invalid = invalid(source, lim.check(c))
	return c, nil
}

func noCandidates(path string, dir bool, ignored []string) error {
	if !dir {
		return fmt.Errorf("%w in %s: the file holds no line", ErrNoCandidates, path)
	}
	var also string
	if len(ignored) > 0 {
		const show = 5
		also = "; ignored " + strings.Join(ignored[:min(show, len(ignored))], ", ")
		if len(ignored) > show {
			also += fmt.Sprintf(" and %d more", len(ignored)-show)
		}
	}
	return fmt.Errorf("%w in %s: want NAME.patch or NAME.diff files, NAME/ directories of whole files, or .jsonl files%s", ErrNoCandidates, path, also)
}
