package profiler

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"math"
	"sort"
	"strings"
)

// unit is a stretch of a changed file that gets one line table. It is a Go
// function or method declaration, or a whole file that is not Go, does not
// parse, or could not be read.
type unit struct {
	name       string // fixture.Sum, fixture.(*T).M; "" for a whole file
	file       string // module-relative
	start, end int    // 1-based, inclusive
}

// key pairs the units of base and the winner.
func (u *unit) key() string { return u.file + "\x00" + u.name }

// source is one changed file on one side.
type source struct {
	file  string
	lines []string // nil when the text could not be read
	units []*unit  // sorted by start, not overlapping
}

// unitAt returns the unit holding line, or nil.
func (s *source) unitAt(line int) *unit {
	if s == nil {
		return nil
	}
	i := sort.Search(len(s.units), func(i int) bool { return s.units[i].end >= line })
	if i < len(s.units) && s.units[i].start <= line {
		return s.units[i]
	}
	return nil
}

// sources are the changed files, by module-relative path, on each side. A
// file missing from a side does not exist there.
type sources struct {
	base, cand map[string]*source
}

// readSources reads and splits into units the changed files on both sides.
func readSources(files []string, baseR, candR func(string) ([]byte, error), n *namer, warnf func(string, ...any)) sources {
	srcs := sources{base: map[string]*source{}, cand: map[string]*source{}}
	for _, side := range []struct {
		name string
		read func(string) ([]byte, error)
		m    map[string]*source
	}{{"base", baseR, srcs.base}, {"the winner", candR, srcs.cand}} {
		for _, f := range files {
			if src := readSource(f, side.read, side.name, n, warnf); src != nil {
				side.m[f] = src
			}
		}
	}
	return srcs
}

// readSource reads one file on one side: nil when it does not exist there,
// a source without text when it cannot be read.
func readSource(file string, read func(string) ([]byte, error), side string, n *namer, warnf func(string, ...any)) *source {
	noText := &source{file: file, units: []*unit{{file: file, start: 1, end: math.MaxInt}}}
	if read == nil {
		warnf("no source reader for %s: line tables show no text", side)
		return noText
	}
	data, err := read(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		warnf("read %s at %s: %s", file, side, n.scrub(errText(err)))
		return noText
	}
	return parseSource(file, data)
}

// errText is an error's message without the path of a *fs.PathError, which
// would name a slot.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

// parseSource splits a file into lines and units.
func parseSource(file string, data []byte) *source {
	src := &source{file: file, lines: splitLines(data)}
	if strings.HasSuffix(file, ".go") {
		if units, ok := goUnits(file, data); ok {
			src.units = units
			return src
		}
	}
	src.units = []*unit{{file: file, start: 1, end: max(len(src.lines), 1)}}
	return src
}

func splitLines(data []byte) []string {
	s := strings.TrimSuffix(string(data), "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return lines
}

// goUnits returns the function and method declarations of a Go file, named
// as the runtime names them: pkg.F, pkg.T.M, pkg.(*T).M.
func goUnits(file string, data []byte) ([]*unit, bool) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, data, parser.SkipObjectResolution)
	if err != nil || f == nil {
		return nil, false
	}
	var units []*unit
	seen := map[string]int{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		name := f.Name.Name + "." + funcName(fd)
		seen[name]++
		if k := seen[name]; k > 1 {
			name = fmt.Sprintf("%s#%d", name, k)
		}
		units = append(units, &unit{name: name, file: file,
			start: fset.Position(fd.Pos()).Line, end: fset.Position(fd.End()).Line})
	}
	sort.Slice(units, func(i, j int) bool { return units[i].start < units[j].start })
	return units, true
}

func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if st, ok := t.(*ast.StarExpr); ok {
		return "(*" + typeName(st.X) + ")." + fd.Name.Name
	}
	return typeName(t) + "." + fd.Name.Name
}

func typeName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.ParenExpr:
		return typeName(t.X)
	case *ast.IndexExpr:
		return typeName(t.X) + "[...]"
	case *ast.IndexListExpr:
		return typeName(t.X) + "[...]"
	}
	return "?"
}

// unitPair is a function at base and in the winner; either may be nil.
type unitPair struct {
	b, c   *unit
	weight float64 // the largest share of either side, flat or cum
}

// lineRows builds the line tables: for each changed function with at least
// MinLineShare of either side's samples, heaviest first, at most limit.
func lineRows(srcs sources, bs, cs *stats, limit int) []LineRow {
	pairs := map[string]*unitPair{}
	get := func(u *unit) *unitPair {
		p := pairs[u.key()]
		if p == nil {
			p = &unitPair{}
			pairs[u.key()] = p
		}
		return p
	}
	for _, src := range srcs.base {
		for _, u := range src.units {
			get(u).b = u
		}
	}
	for _, src := range srcs.cand {
		for _, u := range src.units {
			get(u).c = u
		}
	}
	var sel []*unitPair
	for _, p := range pairs {
		p.weight = max(bs.pct(bs.unitCum[p.b]), bs.pct(bs.unitFlat[p.b]),
			cs.pct(cs.unitCum[p.c]), cs.pct(cs.unitFlat[p.c]))
		if p.weight >= MinLineShare {
			sel = append(sel, p)
		}
	}
	sort.Slice(sel, func(i, j int) bool {
		if sel[i].weight != sel[j].weight {
			return sel[i].weight > sel[j].weight
		}
		return sel[i].any().key() < sel[j].any().key()
	})
	if len(sel) > limit {
		sel = sel[:limit]
	}
	rows := []LineRow{}
	for _, p := range sel {
		t := lineTable{p: p, bs: bs, cs: cs}
		if p.b != nil {
			t.sb = srcs.base[p.b.file]
		}
		if p.c != nil {
			t.sc = srcs.cand[p.c.file]
		}
		rows = append(rows, t.rows()...)
	}
	return rows
}

func (p *unitPair) any() *unit {
	if p.b != nil {
		return p.b
	}
	return p.c
}

// lineTable builds the rows of one function.
type lineTable struct {
	p      *unitPair
	sb, sc *source
	bs, cs *stats
}

// rows aligns the two versions' lines when both have text, and otherwise
// lists each side's rows in turn.
func (t lineTable) rows() []LineRow {
	hasText := func(u *unit, s *source) bool { return u == nil || (s != nil && s.lines != nil) }
	if !hasText(t.p.b, t.sb) || !hasText(t.p.c, t.sc) {
		return append(t.sideRows(t.p.b, t.sb, true), t.sideRows(t.p.c, t.sc, false)...)
	}
	a, b := unitLines(t.p.b, t.sb), unitLines(t.p.c, t.sc)
	var rows []LineRow
	for _, o := range align(a, b) {
		switch o.kind {
		case opEqual:
			rows = append(rows, t.row(t.p.b.start+o.a, t.p.c.start+o.b, "", b[o.b]))
		case opDelete:
			rows = append(rows, t.row(t.p.b.start+o.a, 0, "-", a[o.a]))
		case opInsert:
			rows = append(rows, t.row(0, t.p.c.start+o.b, "+", b[o.b]))
		}
	}
	return elide(rows)
}

// sideRows lists one side's lines: all of them when the source has text,
// only those with samples when it has not.
func (t lineTable) sideRows(u *unit, src *source, base bool) []LineRow {
	if u == nil {
		return nil
	}
	mk := func(line int, text string) LineRow {
		if base {
			return t.row(line, 0, "", text)
		}
		return t.row(0, line, "", text)
	}
	var rows []LineRow
	if src != nil && src.lines != nil {
		for i, text := range unitLines(u, src) {
			rows = append(rows, mk(u.start+i, text))
		}
		return elide(rows)
	}
	st := t.cs
	if base {
		st = t.bs
	}
	var lines []int
	for fl := range st.lineCum {
		if fl.file == u.file && fl.line >= u.start && fl.line <= u.end {
			lines = append(lines, fl.line)
		}
	}
	sort.Ints(lines)
	for _, l := range lines {
		rows = append(rows, mk(l, ""))
	}
	return rows
}

// row makes one row; a line number of 0 means the line is not on that side.
func (t lineTable) row(bl, cl int, change, text string) LineRow {
	u := t.p.any()
	r := LineRow{Func: u.name, File: u.file, Change: change, BaseLine: bl, CandLine: cl, Text: text}
	if bl > 0 {
		fl := fileLine{u.file, bl}
		r.Flat.Base, r.Cum.Base = round2(t.bs.pct(t.bs.lineFlat[fl])), round2(t.bs.pct(t.bs.lineCum[fl]))
	}
	if cl > 0 {
		fl := fileLine{u.file, cl}
		r.Flat.Cand, r.Cum.Cand = round2(t.cs.pct(t.cs.lineFlat[fl])), round2(t.cs.pct(t.cs.lineCum[fl]))
	}
	return r
}

// unitLines returns the source lines of u, or nil.
func unitLines(u *unit, src *source) []string {
	if u == nil || src == nil {
		return nil
	}
	lo, hi := u.start-1, min(u.end, len(src.lines))
	if lo < 0 || lo >= hi {
		return nil
	}
	return src.lines[lo:hi]
}

// elide keeps a long table readable: past MaxFuncRows rows, only the first
// and last rows and those that changed or have samples stay.
func elide(rows []LineRow) []LineRow {
	if len(rows) <= MaxFuncRows {
		return rows
	}
	var kept []LineRow
	for i, r := range rows {
		if i == 0 || i == len(rows)-1 || r.Change != "" || r.Cum != (Share{}) || r.Flat != (Share{}) {
			kept = append(kept, r)
		}
	}
	return kept
}
