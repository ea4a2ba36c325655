package evaluator

import (
	"bytes"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"path"
	"slices"
	"strings"
)

func more(n, shown int) string {
	if n > shown {
		return ", …"
	}
	return ""
}

// contribution is the test functions one candidate adds or changes, with the
// files that hold them, as the candidate wrote them: what it asks of every
// other candidate.
type contribution struct {
	files map[string][]byte // slash path -> the candidate's version
	names []string          // top-level test and fuzz function names, sorted
	dirs  []string          // package directories, sorted
}

// testFile is one version of a _test.go file, split into the parts that
// judge: test functions, benchmark functions, and everything else.
type testFile struct {
	tests  map[string]string // TestX and FuzzX -> printed body
	benchs map[string]string // BenchmarkX -> printed body
	shared string            // every other declaration, printed, in order
}

// isTestFile reports whether a slash path is a Go test file.
func isTestFile(p string) bool { return strings.HasSuffix(p, "_test.go") }

// parseTestFile splits src; a file that does not parse has no functions and
// its whole text as shared code, so that any edit to it counts as a change.
func parseTestFile(name string, src []byte) testFile {
	tf := testFile{tests: map[string]string{}, benchs: map[string]string{}}
	if src == nil {
		return tf
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		tf.shared = string(src)
		return tf
	}
	var shared bytes.Buffer
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if ok && fd.Recv == nil && fd.Body != nil {
			switch {
			case isFunc(fd.Name.Name, "Test"), isFunc(fd.Name.Name, "Fuzz"):
				tf.tests[fd.Name.Name] = printNode(fset, fd.Body)
				continue
			case isFunc(fd.Name.Name, "Benchmark"):
				tf.benchs[fd.Name.Name] = printNode(fset, fd.Body)
				continue
			}
		}
		shared.WriteString(printNode(fset, d))
		shared.WriteByte('\n')
	}
	tf.shared = shared.String()
	return tf
}

// isFunc reports whether name is prefix followed by nothing or by a
// character that is not a lower-case letter, as go test decides.
func isFunc(name, prefix string) bool {
	if !strings.HasPrefix(name, prefix) {
		return false
	}
	rest := name[len(prefix):]
	return rest == "" || !('a' <= rest[0] && rest[0] <= 'z')
}

func printNode(fset *token.FileSet, n ast.Node) string {
	var b bytes.Buffer
	if err := format.Node(&b, fset, n); err != nil {
		return ""
	}
	return b.String()
}

// diffTests compares base's and a candidate's versions of the test files a
// candidate touches (nil: the file does not exist on that side). It returns
// the edits (nil when no test file changed) and what the candidate
// contributes (nil when it adds or changes no test function).
func diffTests(base, cand map[string][]byte) (*TestEdits, *contribution) {
	e := &TestEdits{}
	con := &contribution{files: map[string][]byte{}}
	for _, p := range sortedPaths(base, cand) {
		if bytes.Equal(base[p], cand[p]) && (base[p] == nil) == (cand[p] == nil) {
			continue
		}
		e.Files = append(e.Files, p)
		bf, cf := parseTestFile(p, base[p]), parseTestFile(p, cand[p])
		sharedChanged := bf.shared != cf.shared
		var added, removed, mine []string
		for name, body := range cf.tests {
			old, ok := bf.tests[name]
			switch {
			case !ok:
				added = append(added, name)
			case old != body || sharedChanged:
				e.Changed = append(e.Changed, p+":"+name)
				mine = append(mine, name)
			}
		}
		for name := range bf.tests {
			if _, ok := cf.tests[name]; !ok {
				removed = append(removed, name)
			}
		}
		slices.Sort(added)
		slices.Sort(removed)
		added, removed = renames(e, p, bf, cf, added, removed)
		mine = append(mine, added...) // a renamed test is base's own: it asks nothing new
		for _, n := range added {
			e.Added = append(e.Added, p+":"+n)
		}
		for _, n := range removed {
			e.Removed = append(e.Removed, p+":"+n)
		}
		for name, body := range bf.benchs {
			if nb, ok := cf.benchs[name]; !ok || nb != body || sharedChanged {
				e.Benchmarks = append(e.Benchmarks, p+":"+name)
			}
		}
		if len(mine) > 0 && cand[p] != nil {
			con.files[p] = cand[p]
			con.names = append(con.names, mine...)
			con.dirs = append(con.dirs, path.Dir(p))
		}
	}
	if len(e.Files) == 0 {
		return nil, nil
	}
	for _, l := range [][]string{e.Changed, e.Benchmarks} {
		slices.Sort(l)
	}
	if len(con.names) == 0 {
		return e, nil
	}
	slices.Sort(con.names)
	con.names = slices.Compact(con.names)
	slices.Sort(con.dirs)
	con.dirs = slices.Compact(con.dirs)
	return e, con
}

// renames pairs removed and added test functions of one file with the same
// body, and records them as renamed; it returns the rest.
func renames(e *TestEdits, p string, bf, cf testFile, added, removed []string) ([]string, []string) {
	var keepRemoved []string
	for _, old := range removed {
		i := slices.IndexFunc(added, func(n string) bool { return cf.tests[n] == bf.tests[old] })
		if i < 0 {
			keepRemoved = append(keepRemoved, old)
			continue
		}
		e.Renamed = append(e.Renamed, p+":"+old+" -> "+added[i])
		added = slices.Delete(added, i, i+1)
	}
	return added, keepRemoved
}

func sortedPaths(a, b map[string][]byte) []string {
	var out []string
	for p := range a {
		out = append(out, p)
	}
	for p := range b {
		out = append(out, p)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
