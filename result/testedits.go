package result

import "strings"

// TestEdits is what a candidate changes in the judge. That is the Go test
// files it adds, changes or deletes, function by function, and other
// languages' test files. Each of the latter is a whole file, its path alone
// in Added, Changed or Removed. A candidate that removes or changes a test,
// or changes a benchmark, is flagged. By default base's versions of Files
// judge and measure it (Judged "base"); under --trust-candidate-tests, its
// own do (Judged "candidate"). Names are written "dir/file_test.go:TestX".
type TestEdits struct {
	Files      []string `json:"files"`
	Added      []string `json:"added,omitempty"`      // new test and fuzz functions
	Changed    []string `json:"changed,omitempty"`    // test functions whose body, or whose file's shared code, changed
	Removed    []string `json:"removed,omitempty"`    // test functions gone, and not merely renamed
	Renamed    []string `json:"renamed,omitempty"`    // "x_test.go:TestOld -> TestNew": the same body under a new name
	Benchmarks []string `json:"benchmarks,omitempty"` // benchmarks whose body changed, or that were removed
	Judged     string   `json:"judged"`               // "base" or "candidate": whose Files judged and measured it
}

// Flagged reports whether the candidate edits the judge: a test removed,
// renamed or changed, or a benchmark changed.
func (e *TestEdits) Flagged() bool {
	return e != nil && len(e.Changed)+len(e.Removed)+len(e.Renamed)+len(e.Benchmarks) > 0
}

// Summary says in one line what the candidate did to the judge.
func (e *TestEdits) Summary() string {
	var parts []string
	for _, p := range []struct {
		what  string
		names []string
	}{
		{"removes", e.Removed}, {"changes", e.Changed}, {"renames", e.Renamed},
		{"changes benchmarks", e.Benchmarks}, {"adds", e.Added},
	} {
		if len(p.names) > 0 {
			parts = append(parts, p.what+" "+listed(p.names, 4))
		}
	}
	s := "its tests: " + strings.Join(parts, "; ")
	if len(parts) == 0 {
		s = "its test files change only outside test functions"
	}
	if e.Judged == "base" {
		s += "; judged with base's " + listed(e.Files, 4)
	}
	return s
}

// listed is the first n of names, comma-separated, with ", …" when there
// are more.
func listed(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:n], ", ") + ", …"
}
