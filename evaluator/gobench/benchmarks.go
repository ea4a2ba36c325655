package gobench

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/optimizer-dev/optimizer/gitcmd"
)

// benchmarks returns the sorted names of the top-level benchmark functions
// declared in files, which are in dir.
func benchmarks(dir string, files []string) ([]string, error) {
	fset := token.NewFileSet()
	var names []string
	for _, name := range files {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("parse test file: %w", err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && isBenchmark(fn) {
				names = append(names, fn.Name.Name)
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}

// isBenchmark reports whether fn is a function that go test runs as a
// benchmark. Like cmd/go, it accepts a parameter of type *B or *anything.B.
// It cannot know how the file imports testing, and a function of that name
// with any other signature does not build.
func isBenchmark(fn *ast.FuncDecl) bool {
	t := fn.Type
	switch {
	case fn.Recv != nil || !isBenchName(fn.Name.Name):
		return false
	case t.TypeParams != nil && len(t.TypeParams.List) > 0:
		return false
	case t.Results != nil && len(t.Results.List) > 0:
		return false
	case len(t.Params.List) != 1 || len(t.Params.List[0].Names) > 1:
		return false
	}
	star, ok := t.Params.List[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	switch x := star.X.(type) {
	case *ast.Ident:
		return x.Name == "B"
	case *ast.SelectorExpr:
		return x.Sel.Name == "B"
	}
	return false
}

// isBenchName reports whether name is "Benchmark" followed by nothing or by
// anything but a lower-case letter, as go test requires.
func isBenchName(name string) bool {
	rest, ok := strings.CutPrefix(name, "Benchmark")
	if !ok {
		return false
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return !unicode.IsLower(r)
}

// benchDecl matches the start of a top-level benchmark's declaration, as
// gofmt writes it.
var benchDecl = regexp.MustCompile(`^func (Benchmark[^(\s]*)\(`)

// TopNames returns the sorted names of the top-level benchmarks declared in
// the _test.go files of commit rev of the repository at repo, outside
// testdata and vendor. It reads them with git grep, with no checkout and no
// go list, so it is cheap enough to check --bench-filter before anything
// runs. It sees more than Packages does (files behind build tags, other
// modules), never less: a filter that matches none of these names matches
// none of the benchmarks Packages finds.
func TopNames(ctx context.Context, repo, rev string) ([]string, error) {
	out, err := gitcmd.Run(ctx, gitcmd.Cmd{Dir: repo, ReadOnly: true, Args: []string{"grep", "-h", "-I", "-E",
		`^func Benchmark[^(]*\(`, rev, "--", "*_test.go", ":!**/testdata/**", ":!vendor/**"}})
	var ge *gitcmd.Error
	if errors.As(err, &ge) && ge.ExitCode() == 1 {
		return nil, nil // no match
	}
	if err != nil {
		return nil, fmt.Errorf("list the benchmarks of %s: %w", rev, err)
	}
	var names []string
	for line := range strings.Lines(string(out)) {
		if m := benchDecl.FindStringSubmatch(line); m != nil && isBenchName(m[1]) {
			names = append(names, m[1])
		}
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}
