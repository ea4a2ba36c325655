package candidate

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// ValidatePath reports whether p may be written by a candidate: a clean,
// slash-separated path relative to the repository root. It refuses "", a NUL
// byte, an absolute path, a ".." component, and a path that is not clean
// ("a//b", "./a", "a/"). It refuses a ".git" component in any case, at any
// depth: a nested repository's .git is as dangerous as the top one. The
// error is a *PathError that says what to write instead.
func ValidatePath(p string) error {
	bad := func(reason string) error { return &PathError{Path: p, Reason: reason} }
	switch {
	case p == "":
		return bad("is empty")
	case strings.IndexByte(p, 0) >= 0:
		return bad("holds a NUL byte")
	case strings.HasPrefix(p, "/") || filepath.IsAbs(filepath.FromSlash(p)):
		return bad("is absolute; give it relative to the repository root")
	}
	for _, elem := range strings.Split(p, "/") {
		switch {
		case elem == "..":
			return bad("leaves the repository (..)")
		case strings.EqualFold(elem, ".git"):
			return bad("is inside .git, which candidates may not touch")
		}
	}
	switch c := path.Clean(p); {
	case c == ".":
		return bad("names no file")
	case c != p:
		return bad(fmt.Sprintf("is not clean; write %q", c))
	}
	if !filepath.IsLocal(filepath.FromSlash(p)) {
		return bad("is not a local path on this system")
	}
	return nil
}
