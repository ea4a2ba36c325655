package candidate

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxBytes is the most one candidate may hold: the size of its patch plus the
// sizes of its whole files. A bigger candidate is loaded as Invalid, without
// its content, so that a stray data file cannot fill memory or the store.
const MaxBytes = 50 << 20

// limit is the most one candidate may hold, in bytes: MaxBytes, or lower
// in tests that would otherwise push 50 MB through the race detector. The
// loaders are its methods, so that the limit travels with the call.
type limit int64

// Candidate is a named change against base: a unified diff, a set of whole
// files, or both (the patch is applied first). A Candidate is a value; the
// package never keeps or changes one after returning it.
type Candidate struct {
	Name   string // unique within a job
	Source string // where it came from: "cands/fast.patch", "cands.jsonl:3", "ref feature"

	Patch   []byte            // unified diff against base, as git apply takes it
	Files   map[string][]byte // whole files, slash paths relative to the repo root
	Deleted []string          // slash paths to delete (watch snapshots, JSONL null files)

	Parent      string // the candidate this one was derived from, if any
	Explanation string // what the change is meant to do, if known

	// Invalid is a candidate-level problem found while loading: a path that
	// leaves the tree, a binary or non-diff patch, a symlink out of its
	// directory, too much data. The candidate fails with kind apply and the
	// job goes on. Its message starts with Source.
	Invalid error
}

var (
	// ErrNoCandidates is returned by Load for a path that holds no candidate.
	ErrNoCandidates = errors.New("no candidates")
	// ErrDuplicateName is returned by CheckNames (and Load) when two
	// candidates share a name.
	ErrDuplicateName = errors.New("duplicate candidate name")
	// ErrBadName is returned by CheckNames for an empty name or one holding
	// control characters.
	ErrBadName = errors.New("bad candidate name")
	// ErrUnknownRef is returned by FromRef for a revision that names no commit.
	ErrUnknownRef = errors.New("unknown revision")

	// ErrBadPath is wrapped by every *PathError.
	ErrBadPath = errors.New("bad path")
	// ErrNotDiff marks a patch in which no file header can be found.
	ErrNotDiff = errors.New("not a diff")
	// ErrBinaryPatch marks a patch that changes a file as binary data.
	ErrBinaryPatch = errors.New("binary patch")
	// ErrTooLarge marks a candidate over MaxBytes.
	ErrTooLarge = errors.New("candidate too large")
	// ErrEmpty marks a candidate that holds no change at all.
	ErrEmpty = errors.New("empty candidate")
	// ErrSymlink marks a candidate directory holding a symlink that leaves
	// it, dangles, or points to a directory.
	ErrSymlink = errors.New("bad symlink")
	// ErrNotRegular marks a candidate directory holding a device, socket or pipe.
	ErrNotRegular = errors.New("not a regular file")
)

// PathError is a path a candidate may not touch. It wraps ErrBadPath.
type PathError struct {
	Path   string
	Reason string // "is absolute; give it relative to the repository root", ...
}

func (e *PathError) Error() string { return fmt.Sprintf("path %q %s", e.Path, e.Reason) }

// Unwrap returns ErrBadPath.
func (e *PathError) Unwrap() error { return ErrBadPath }

// SyntaxError is a malformed line of a JSONL candidates file. It stops the
// job: the file's writer must fix it.
type SyntaxError struct {
	File string
	Line int // 1-based
	Msg  string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// ApplyError is a candidate that does not lay over base. Either git apply
// refused its patch, or one of its whole files would replace a directory or
// go through a symlink or submodule.
type ApplyError struct {
	Base   string // the commit it was laid over
	Stderr string // what git said, or the reason found before running git
	Err    error  // the underlying error, if any
}

func (e *ApplyError) Error() string {
	return fmt.Sprintf("does not apply to base %s: %s", short(e.Base), strings.TrimSpace(e.Stderr))
}

// Unwrap returns the underlying error.
func (e *ApplyError) Unwrap() error { return e.Err }

// Validate reports the first candidate-level problem in c: more than
// MaxBytes, a patch that is not a diff or is binary, or a path that
// ValidatePath refuses. Loaders store its result, prefixed with Source, in
// Invalid. It does not look at the repository: a patch that passes may still
// not apply (TreeID finds that).
func (c Candidate) Validate() error { return limit(MaxBytes).validate(c) }

func (lim limit) validate(c Candidate) error {
	size := int64(len(c.Patch))
	for _, b := range c.Files {
		size += int64(len(b))
	}
	if size > int64(lim) {
		return lim.tooLarge(size)
	}
	if len(c.Patch) > 0 {
		if err := validatePatch(c.Patch); err != nil {
			return err
		}
	}
	for _, p := range sortedKeys(c.Files) {
		if err := ValidatePath(p); err != nil {
			return err
		}
	}
	for _, p := range c.Deleted {
		if err := ValidatePath(p); err != nil {
			return err
		}
	}
	return nil
}

// validatePatch checks that patch is a text diff touching only valid paths.
func validatePatch(patch []byte) error {
	if len(strings.TrimSpace(string(patch))) == 0 {
		return fmt.Errorf("%w: the patch is empty", ErrEmpty)
	}
	info := scanPatch(patch)
	if info.headers == 0 {
		return fmt.Errorf("%w: found no file header (a \"diff --git\" line, or a \"--- a/PATH\" line followed by \"+++ b/PATH\")", ErrNotDiff)
	}
	if len(info.paths) == 0 {
		return fmt.Errorf("%w: its file headers name no file", ErrNotDiff)
	}
	if len(info.binary) > 0 {
		return fmt.Errorf("%w: %s changes as binary data, which a text patch cannot carry; give the whole file in a candidate directory or a JSONL \"files\" entry instead", ErrBinaryPatch, strings.Join(info.binary, ", "))
	}
	for _, p := range info.paths {
		if err := ValidatePath(p); err != nil {
			return err
		}
	}
	return nil
}

func (lim limit) tooLarge(size int64) error {
	return fmt.Errorf("%w: it holds %.1f MB, over the %d MB limit for one candidate", ErrTooLarge, float64(size)/(1<<20), lim>>20)
}

// CheckNames reports names that are empty, hold control characters, or are
// shared by two candidates, naming the sources of each duplicate. Load calls
// it; call it again after adding candidates from other sources (refs).
func CheckNames(cands []Candidate) error {
	first := map[string]string{} // name -> source
	var dups []string
	for _, c := range cands {
		if c.Name == "" {
			return fmt.Errorf("%w: the candidate from %s has an empty name", ErrBadName, c.Source)
		}
		if i := strings.IndexFunc(c.Name, isControl); i >= 0 {
			r, _ := utf8.DecodeRuneInString(c.Name[i:])
			return fmt.Errorf("%w: %q (from %s) holds a control character or an invisible format character (%U), which would make it print as another name", ErrBadName, c.Name, c.Source, r)
		}
		if src, ok := first[c.Name]; ok {
			dups = append(dups, fmt.Sprintf("%q in %s and %s", c.Name, src, c.Source))
			continue
		}
		first[c.Name] = c.Source
	}
	if len(dups) > 0 {
		return fmt.Errorf("%w: %s; names must be unique across all candidates", ErrDuplicateName, strings.Join(dups, "; "))
	}
	return nil
}

// isControl reports a rune that a name must not hold: a control character
// (C0, DEL, C1) or a format character (Unicode Cf). Format characters, such
// as the bidi override U+202E, zero-width joiners and soft hyphens, make a
// name print as something it is not. An invalid UTF-8 byte counts too.
func isControl(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func short(rev string) string {
	if len(rev) == 40 || len(rev) == 64 {
		return rev[:12]
	}
	return rev
}
