// Package testedits finds what a candidate changes in the test files that
// judge it. That is the tests it adds, changes, removes or renames, the
// benchmarks it edits, and the tests it contributes to every other
// candidate.
package testedits

import (
	"bytes"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"path"
	"slices"
	"strings"

	"github.com/optimizer-dev/optimizer/result"
)

// Contribution is the test functions one candidate adds or changes, with the
// files that hold them, as the candidate wrote them: what it asks of every
// other candidate. Test files of other languages than Go are whole files,
// with no names.
type Contribution struct {
	Files map[string][]byte // slash path -> the candidate's version
	Names []string          // Go's top-level test and fuzz function names, sorted
	Dirs  []string          // Go package directories, sorted
}

// testFile is one version of a _test.go file, split into the parts that
// judge: test functions, benchmark functions, and everything else.
type testFile struct {
	tests  map[string]string // TestX and FuzzX -> printed body
	benchs map[string]string // BenchmarkX -> printed body
	shared string            // every other declaration, printed, in order
}

// IsTestFile reports whether a slash path is part of the judge: a Go test
// file, or another language's test or benchmark file (isOtherTestFile).
func IsTestFile(p string) bool { return isGoTestFile(p) || isOtherTestFile(p) }

// isGoTestFile reports whether a slash path is a Go test file.
func isGoTestFile(p string) bool { return strings.HasSuffix(p, "_test.go") }

// Source file extensions of the other languages whose test files are
// found by name (isOtherTestFile).
var (
	jsExts   = map[string]bool{".js": true, ".mjs": true, ".cjs": true, ".jsx": true, ".ts": true, ".mts": true, ".cts": true, ".tsx": true}
	cExts    = map[string]bool{".c": true, ".cc": true, ".cpp": true, ".cxx": true, ".h": true, ".hh": true, ".hpp": true}
	testDirs = map[string]bool{"test": true, "tests": true, "__tests__": true, "benches": true, "benchmarks": true}
)

// isOtherTestFile reports whether a slash path is a test or benchmark
// source file of another language, by the names its runners collect. For
// Python: test_x.py, x_test.py, conftest.py, bench_x.py. For JavaScript:
// x.test.js, x.spec.ts, x.bench.js, x-test.js, x_test.js, test-x.js,
// test.js. For Rust and C++: x_test.rs, x_bench.rs, x_test.cc,
// x_benchmark.cc, test_x.cc, test.cc. For Java: XTest.java, XTests.java,
// TestX.java. Any such source file under a directory named test, tests,
// __tests__, benches or benchmarks is one too (Rust's tests/ and benches/,
// Maven's src/test/). Go files go by isGoTestFile alone.
func isOtherTestFile(p string) bool {
	base := path.Base(p)
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	has := func(prefixes, suffixes []string) bool {
		for _, x := range prefixes {
			if strings.HasPrefix(stem, x) {
				return true
			}
		}
		for _, x := range suffixes {
			if strings.HasSuffix(stem, x) {
				return true
			}
		}
		return false
	}
	switch {
	case ext == ".py":
		if stem == "conftest" || has([]string{"test_", "bench_"}, []string{"_test"}) {
			return true
		}
	case jsExts[ext]:
		if stem == "test" || has([]string{"test-"}, []string{".test", ".spec", ".bench", "-test", "_test"}) {
			return true
		}
	case ext == ".rs" || cExts[ext]:
		if stem == "test" || has([]string{"test_"}, []string{"_test", "_unittest", "_bench", "_benchmark"}) {
			return true
		}
	case ext == ".java" || ext == ".kt":
		if has([]string{"Test"}, []string{"Test", "Tests", "TestCase"}) {
			return true
		}
	default:
		return false
	}
	for _, d := range strings.Split(path.Dir(p), "/") {
		if testDirs[d] {
			return true
		}
	}
	return false
}

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

// Diff compares base's and a candidate's versions of the test files a
// candidate touches (nil: the file does not exist on that side). It returns
// the edits (nil when no test file changed) and what the candidate
// contributes (nil when it adds or changes no test function).
func Diff(base, cand map[string][]byte) (*result.TestEdits, *Contribution) {
	e := &result.TestEdits{}
	con := &Contribution{Files: map[string][]byte{}}
	for _, p := range sortedPaths(base, cand) {
		if bytes.Equal(base[p], cand[p]) && (base[p] == nil) == (cand[p] == nil) {
			continue
		}
		e.Files = append(e.Files, p)
		if !isGoTestFile(p) {
			otherEdit(e, con, p, base[p], cand[p])
			continue
		}
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
			con.Files[p] = cand[p]
			con.Names = append(con.Names, mine...)
			con.Dirs = append(con.Dirs, path.Dir(p))
		}
	}
	if len(e.Files) == 0 {
		return nil, nil
	}
	for _, l := range [][]string{e.Changed, e.Benchmarks} {
		slices.Sort(l)
	}
	if len(con.Files) == 0 {
		return e, nil
	}
	slices.Sort(con.Names)
	con.Names = slices.Compact(con.Names)
	slices.Sort(con.Dirs)
	con.Dirs = slices.Compact(con.Dirs)
	return e, con
}

// otherEdit records an edit to a test file of a language other than Go,
// whose tests are not found in its source. The whole file is added, changed
// or removed, and the candidate's version, when it has one, is contributed.
// A JUnit job finds the tests in it by running them.
func otherEdit(e *result.TestEdits, con *Contribution, p string, base, cand []byte) {
	switch {
	case base == nil:
		e.Added = append(e.Added, p)
	case cand == nil:
		e.Removed = append(e.Removed, p)
	default:
		e.Changed = append(e.Changed, p)
	}
	if cand != nil {
		con.Files[p] = cand
	}
}

// renames pairs removed and added test functions of one file with the same
// body, and records them as renamed; it returns the rest.
func renames(e *result.TestEdits, p string, bf, cf testFile, added, removed []string) ([]string, []string) {
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
