package goenv

import "strings"

// noTestCache returns the GOFLAGS that every test command runs with. They
// are the user's GOFLAGS with -count=1 appended, unless they set a -count
// of their own. The go command answers from its cache only when every flag
// is one of its cacheable flags, and -count is not one. So with it, go test
// really runs every test. Without it, a test whose outcome depends on
// something go test does not track would pass in every candidate after
// passing once in the same slot. Such a thing is a script it runs, or a
// file read by a child process. The cache would forge passes. A user's own
// --test that runs go test gets the same. A command line that sets GOFLAGS
// itself, or passes -count, decides for itself.
func noTestCache(user string) string {
	if setsFlag(user, "count") {
		return user
	}
	return strings.TrimSpace(user + " -count=1")
}

// TestFlags returns the GOFLAGS that every test command runs with. They
// are the user's, with -count=1 (noTestCache) and the build tags of
// buildFlags (--tags, or a -tags in --build-flags). So tests build as the
// benchmark binaries do. A -tags in the user's GOFLAGS wins.
func TestFlags(user string, buildFlags []string) string {
	flags := noTestCache(user)
	if tags := BuildTags(buildFlags); tags != "" && !setsFlag(user, "tags") {
		flags = strings.TrimSpace(flags + " -tags=" + tags)
	}
	return flags
}

// setsFlag reports whether the GOFLAGS value flags sets the flag name.
func setsFlag(flags, name string) bool {
	for _, f := range strings.Fields(flags) {
		f = strings.TrimPrefix(strings.TrimPrefix(f, "-"), "-")
		if f == name || strings.HasPrefix(f, name+"=") {
			return true
		}
	}
	return false
}

// BuildTags returns the value of the last -tags among go build flags, ""
// when there is none.
func BuildTags(flags []string) string {
	tags := ""
	for i, f := range flags {
		f = strings.TrimPrefix(strings.TrimPrefix(f, "-"), "-")
		if v, ok := strings.CutPrefix(f, "tags="); ok {
			tags = v
		} else if f == "tags" && i+1 < len(flags) {
			tags = flags[i+1]
		}
	}
	return tags
}
