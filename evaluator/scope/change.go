package scope

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
)

// Func is a function or method of base.
type Func struct {
	File    string // slash path from the repository root
	Name    string // "Sum", or "Tree.Get" for a method
	Line    int    // its func keyword
	EndLine int    // its closing brace
}

func (f Func) String() string { return fmt.Sprintf("%s (%s:%d)", f.Name, f.File, f.Line) }

// Change is what a candidate changes of base's Go code.
type Change struct {
	// Funcs are base's functions whose lines the candidate changes,
	// sorted by file and line.
	Funcs []Func
	// Outside says, one entry a file, what the candidate changes outside
	// any function: a declaration, an import, an init, a comment between
	// functions, a file that is not Go. Such a change can reach any
	// benchmark, so a candidate with one is measured on every benchmark of
	// the packages it affects.
	Outside []string
	// Siblings are every function of base in the files of Funcs, for
	// naming the benchmarks closest to a change that none executes.
	Siblings []Func
}

// Changed reads which functions of base ch changes. A function is changed
// when a hunk of the diff removes or adds a line between its doc comment
// and its closing brace. That may be at base or in the candidate, where it
// is matched to base's by name and receiver. A hunk's blank lines count for
// nothing. Nor does a new function other than init or a method: no
// benchmark can execute it at base, and what calls it is changed too. Test
// files count only when tests is set (the candidate's test files are what
// runs). Otherwise base's are laid back over them and they change nothing.
func Changed(ch candidate.Change, tests bool) Change {
	var out Change
	hunks, bad := parseHunks(ch.Patch)
	if bad != "" {
		out.Outside = append(out.Outside, bad)
	}
	outside := map[string]string{}
	seen := map[Func]bool{}
	for _, p := range ch.Paths {
		switch {
		case strings.HasSuffix(p, "_test.go") && !tests:
			continue
		case strings.HasSuffix(p, "_test.go"):
			outside[p] = p + ": a test file, which the benchmarks run"
			continue
		case !strings.HasSuffix(p, ".go"):
			outside[p] = p + ": not a Go file"
			continue
		}
		base, errB := parseFuncs(p, ch.Base[p])
		cand, errC := parseFuncs(p, ch.Cand[p])
		switch {
		case errB != nil || errC != nil:
			outside[p] = p + ": does not parse"
			continue
		case ch.Base[p] == nil:
			outside[p] = p + ": a new file"
			continue
		case ch.Cand[p] == nil:
			outside[p] = p + ": deleted"
			continue
		}
		for _, f := range base.funcs {
			out.Siblings = append(out.Siblings, f.Func)
		}
		for _, h := range hunks[p] {
			for l := h.oldStart; l < h.oldStart+h.oldLines; l++ {
				if why := base.classify(l, nil, func(f decl) { addFunc(&out, seen, f.Func) }); why != "" && outside[p] == "" {
					outside[p] = fmt.Sprintf("%s:%d: %s", p, l, why)
				}
			}
			for l := h.newStart; l < h.newStart+h.newLines; l++ {
				if why := cand.classify(l, base, func(f decl) { addFunc(&out, seen, f.Func) }); why != "" && outside[p] == "" {
					outside[p] = fmt.Sprintf("%s:%d of the candidate: %s", p, l, why)
				}
			}
		}
	}
	for _, p := range slices.Sorted(maps.Keys(outside)) {
		out.Outside = append(out.Outside, outside[p])
	}
	slices.SortFunc(out.Funcs, func(a, b Func) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		return a.Line - b.Line
	})
	return out
}

func addFunc(out *Change, seen map[Func]bool, f Func) {
	if !seen[f] {
		seen[f] = true
		out.Funcs = append(out.Funcs, f)
	}
}

// decl is a function of one side of a file, with the lines it spans.
type decl struct {
	Func
	key  string // receiver and name: what matches it across the sides
	from int    // its doc comment's first line, or its func keyword's
	init bool
	recv bool
}

// file is one side of a changed Go file.
type file struct {
	funcs []decl
	lines [][]byte
}

// parseFuncs reads the functions of src, a file at p; nil src is no file.
func parseFuncs(p string, src []byte) (*file, error) {
	if src == nil {
		return &file{}, nil
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, p, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	out := &file{lines: bytes.Split(src, []byte("\n"))}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		name := fn.Name.Name
		if fn.Recv != nil && len(fn.Recv.List) == 1 {
			name = recvName(fn.Recv.List[0].Type) + "." + name
		}
		from := fset.Position(fn.Pos()).Line
		if fn.Doc != nil {
			from = fset.Position(fn.Doc.Pos()).Line
		}
		out.funcs = append(out.funcs, decl{
			Func: Func{File: p, Name: name, Line: fset.Position(fn.Pos()).Line, EndLine: fset.Position(fn.End()).Line},
			key:  name, from: from, init: fn.Recv == nil && fn.Name.Name == "init", recv: fn.Recv != nil,
		})
	}
	return out, nil
}

// recvName is the type name of a receiver: T for T, *T, T[K] and *T[K].
func recvName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return "?"
		}
	}
}

// classify calls changed with the function of base that a changed line l of
// this side belongs to. It returns why the line is outside every function,
// or "". The base argument is nil when this side is base; otherwise the
// candidate's functions are matched to base's by key.
func (f *file) classify(l int, base *file, changed func(decl)) string {
	for _, d := range f.funcs {
		if l < d.from || l > d.EndLine {
			continue
		}
		switch {
		case d.init:
			return "an init function, which runs before every benchmark"
		case base == nil:
			changed(d)
			return ""
		}
		if b, ok := base.find(d.key); ok {
			changed(b)
			return ""
		}
		if d.recv {
			return "a new method " + d.Name + ", which may satisfy an interface"
		}
		return "" // a new function: what calls it changed too
	}
	if l-1 < len(f.lines) && len(bytes.TrimSpace(f.lines[l-1])) == 0 {
		return ""
	}
	return "outside any function"
}

// find returns the function of f with key, when there is exactly one.
func (f *file) find(key string) (decl, bool) {
	var out decl
	n := 0
	for _, d := range f.funcs {
		if d.key == key {
			out, n = d, n+1
		}
	}
	return out, n == 1
}

// hunk is one hunk of a -U0 diff: the lines it removes from base and adds
// in the candidate.
type hunk struct {
	oldStart, oldLines int
	newStart, newLines int
}

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// parseHunks reads a git diff's hunks by file (the path on the side that
// has one), and says what it could not read, or "".
func parseHunks(patch []byte) (map[string][]hunk, string) {
	out := map[string][]hunk{}
	var (
		cur    string
		header bool // between a "diff --git" line and its first hunk
	)
	sc := bufio.NewScanner(bytes.NewReader(patch))
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "diff --git "):
			cur, header = "", true
		case header && strings.HasPrefix(line, "--- "):
			cur = diffPath(line[4:], "a/")
		case header && strings.HasPrefix(line, "+++ "):
			if p := diffPath(line[4:], "b/"); p != "" {
				cur = p
			}
		case strings.HasPrefix(line, "@@ "):
			header = false
			m := hunkHeader.FindStringSubmatch(line)
			if m == nil || cur == "" {
				return out, fmt.Sprintf("the diff's hunk %q is not understood", line)
			}
			out[cur] = append(out[cur], hunk{oldStart: atoi(m[1]), oldLines: count(m[2]), newStart: atoi(m[3]), newLines: count(m[4])})
		}
	}
	if sc.Err() != nil {
		return out, "the diff could not be read: " + sc.Err().Error()
	}
	return out, ""
}

// diffPath reads a ---/+++ header's path, "" for /dev/null.
func diffPath(s, prefix string) string {
	if strings.HasPrefix(s, `"`) {
		if u, err := strconv.Unquote(s); err == nil {
			s = u
		}
	}
	if s == "/dev/null" {
		return ""
	}
	return path.Clean(strings.TrimPrefix(s, prefix))
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// count is a hunk range's line count: 1 when it is left out.
func count(s string) int {
	if s == "" {
		return 1
	}
	return atoi(s)
}
