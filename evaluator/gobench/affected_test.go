package gobench

import (
	"context"
	"slices"
	"testing"
)

func TestAffected(t *testing.T) {
	needGo(t)
	basic, deps := newModule(t, basicModule), newModule(t, depsModule)
	const m = "example.com/m"
	for _, tt := range []struct {
		name  string
		dir   string
		files []string
		want  []string
	}{
		// d imports a but has no benchmark: Packages leaves it out, Affected does not.
		{"ChangeA", basic, []string{"a/a.go"}, []string{m + "/a", m + "/b", m + "/d"}},
		{"ChangeC", basic, []string{"c/c.go"}, []string{m + "/c"}},
		{"TestFile", basic, []string{"c/c_test.go"}, []string{m + "/c"}},
		{"Testdata", basic, []string{"a/testdata/in.txt"}, []string{m + "/a", m + "/b", m + "/d"}},
		{"NoPackage", basic, []string{"docs/notes.md"}, []string{}},
		{"Nothing", basic, nil, []string{}},
		{"GoMod", basic, []string{"go.mod"}, []string{m + "/a", m + "/b", m + "/c", m + "/d"}},
		{"Deleted", basic, []string{"c/gone.go"}, []string{m + "/c"}},
		{"Several", basic, []string{"c/c.go", "d/d.go"}, []string{m + "/c", m + "/d"}},
		{"Transitive", deps, []string{"r/r.go"}, []string{m + "/p", m + "/q", m + "/r", m + "/s", m + "/x"}},
		{"XTestImport", deps, []string{"q/q.go"}, []string{m + "/p", m + "/q", m + "/x"}},
		{"RootNearestParent", deps, []string{"docs/notes.md"}, []string{m}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Affected(context.Background(), tt.dir, tt.files)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) || got == nil {
				t.Errorf("Affected(%q) = %q, want %q", tt.files, got, tt.want)
			}
		})
	}
}

func TestAffected_NotModule(t *testing.T) {
	needGo(t)
	if _, err := Affected(context.Background(), t.TempDir(), []string{"a.go"}); err == nil {
		t.Fatal("Affected outside a module: no error")
	}
}
