package candidate

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestDiff lays a patch over base and reads back git's -U0 diff, both
// versions of the files asked for, and none of the others.
func TestDiff(t *testing.T) {
	repo, base := newTestRepo(t, map[string]string{"a.go": "package a\n\nfunc A() int {\n\treturn 1\n}\n", "b.txt": "b\n"})
	patch := "--- a/a.go\n+++ b/a.go\n@@ -3,3 +3,3 @@\n func A() int {\n-\treturn 1\n+\treturn 2\n }\n" +
		"--- /dev/null\n+++ b/n.go\n@@ -0,0 +1 @@\n+package a\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-b\n+c\n"
	before := snapshot(t, repo)
	c := Candidate{Name: "p", Source: "p.patch", Patch: []byte(patch)}
	d, err := Diff(context.Background(), repo, base, c, func(p string) bool { return strings.HasSuffix(p, ".go") })
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.go", "b.txt", "n.go"}; !slices.Equal(d.Paths, want) {
		t.Errorf("paths %q; want %q", d.Paths, want)
	}
	if !strings.Contains(string(d.Patch), "@@ -4 +4 @@") || !strings.Contains(string(d.Patch), "+++ b/n.go") {
		t.Errorf("patch lacks a.go's hunk or n.go:\n%s", d.Patch)
	}
	if string(d.Base["a.go"]) != "package a\n\nfunc A() int {\n\treturn 1\n}\n" || !strings.Contains(string(d.Cand["a.go"]), "return 2") {
		t.Errorf("a.go: base %q, candidate %q", d.Base["a.go"], d.Cand["a.go"])
	}
	if _, ok := d.Base["n.go"]; ok || string(d.Cand["n.go"]) != "package a\n" {
		t.Errorf("n.go: base %q, candidate %q; want none at base", d.Base["n.go"], d.Cand["n.go"])
	}
	if _, ok := d.Cand["b.txt"]; ok {
		t.Error("b.txt was read; want only the files asked for")
	}
	if after := snapshot(t, repo); !mapsEqual(before, after) {
		t.Error("Diff changed the repository")
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
