package optimize

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/google/pprof/profile"
	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/proc"
)

// A Target is a function the loop asks generators to make faster. It holds
// where the function is at base, its text, and, when the base was profiled,
// what the profile says of it.
type Target struct {
	Name    string         `json:"name"` // pkg.Func, or pkg.T.Method
	File    string         `json:"file"` // slash path from the repository's root
	Line    int            `json:"line"`
	EndLine int            `json:"end_line"`
	Source  string         `json:"source"`
	Profile *TargetProfile `json:"profile,omitempty"`
}

// TargetProfile is what a CPU profile of the base's benchmarks says of a
// target: its share, the hottest functions overall, and the cost of its
// lines.
type TargetProfile struct {
	Share float64     `json:"share"` // cumulative fraction of the CPU samples
	Top   []FuncShare `json:"top"`
	Lines []LineShare `json:"lines,omitempty"`
}

// FuncShare is one function's fraction of a profile's samples.
type FuncShare struct {
	Name string  `json:"name"`
	Flat float64 `json:"flat"`
	Cum  float64 `json:"cum"`
}

// LineShare is one source line's fraction of a profile's samples: spent on
// the line itself (flat), and in what it calls too (cum).
type LineShare struct {
	Line int     `json:"line"`
	Flat float64 `json:"flat"`
	Cum  float64 `json:"cum"`
}

// ErrNoTarget is returned when a --target names no function at base.
var ErrNoTarget = errors.New("no such function")

// goFunc is a function declaration found in a file at base.
type goFunc struct {
	pkg, name, file string // name is Func or T.Method
	line, end       int
	source          string
}

func (f goFunc) target() Target {
	return Target{Name: f.pkg + "." + f.name, File: f.file, Line: f.line, EndLine: f.end, Source: f.source}
}

// ResolveTargets finds each spec at base in repo: "pkg.Func", "pkg.T.Method",
// "Func", or "path/file.go:Func" for Go; "path/file:name" for a file of
// another language, whose whole text is the target. A spec that matches no
// function, or more than one, is an error naming what it matched.
func ResolveTargets(ctx context.Context, repo, base string, specs []string) ([]Target, error) {
	funcs, err := baseFuncs(ctx, repo, base)
	if err != nil {
		return nil, err
	}
	var out []Target
	for _, spec := range specs {
		if t, ok := fileTarget(ctx, repo, base, spec); ok {
			out = append(out, t)
			continue
		}
		var match []goFunc
		for _, f := range funcs {
			if matches(f, spec) {
				match = append(match, f)
			}
		}
		switch len(match) {
		case 0:
			return nil, fmt.Errorf("--target %q: %w at base %.12s (use pkg.Func, pkg.T.Method or file.go:Func)%s",
				spec, ErrNoTarget, base, suggestTargets(funcs, spec))
		case 1:
			out = append(out, match[0].target())
		default:
			var names []string
			for _, m := range match {
				names = append(names, fmt.Sprintf("%s (%s:%d)", m.pkg+"."+m.name, m.file, m.line))
			}
			return nil, fmt.Errorf("--target %q matches %d functions: %s; name one", spec, len(match), strings.Join(names, ", "))
		}
	}
	return out, nil
}

// fileTarget resolves "path:name" where path is a file at base that is not
// Go source. The target is the whole file, and name is what the request
// calls it (a function of another language, say).
func fileTarget(ctx context.Context, repo, base, spec string) (Target, bool) {
	file, name, ok := strings.Cut(spec, ":")
	if !ok || strings.HasSuffix(file, ".go") || name == "" {
		return Target{}, false
	}
	src, err := gitRead(ctx, repo, "show", base+":"+file)
	if err != nil {
		return Target{}, false
	}
	return Target{Name: name, File: file, Line: 1, EndLine: strings.Count(string(src), "\n") + 1, Source: string(src)}, true
}

// suggestTargets is "; did you mean file.go:T.find?" for a spec that
// matches no function, or "" when there is nothing to suggest. It suggests
// the methods with that name (file.go:find meant for the method T.find), or
// functions whose name differs only in case. Each is written as the spec
// was, with its file or its package.
func suggestTargets(funcs []goFunc, spec string) string {
	file, name, withFile := strings.Cut(spec, ":")
	if !withFile {
		name = spec
		if i := strings.LastIndexByte(spec, '.'); i >= 0 && !strings.Contains(spec[:i], ".") {
			name = spec[i+1:] // pkg.Func: the name is after the package
		}
	}
	var near []string
	for _, f := range funcs {
		if withFile && !(f.file == file || strings.HasSuffix(f.file, "/"+file)) {
			continue
		}
		method := f.name[strings.LastIndexByte(f.name, '.')+1:]
		if method != name && !strings.EqualFold(f.name, name) {
			continue
		}
		s := f.pkg + "." + f.name
		if withFile {
			s = file + ":" + f.name
		}
		if !slices.Contains(near, s) {
			near = append(near, s)
		}
	}
	if len(near) == 0 {
		return ""
	}
	return "; did you mean " + strings.Join(near[:min(len(near), 3)], " or ") + "?"
}

func matches(f goFunc, spec string) bool {
	if file, name, ok := strings.Cut(spec, ":"); ok {
		return (f.file == file || strings.HasSuffix(f.file, "/"+file)) && f.name == name
	}
	return spec == f.name || spec == f.pkg+"."+f.name
}

// baseFuncs parses every non-test Go file at base, read from git, that the
// default build (this toolchain's GOOS, GOARCH and release tags) compiles.
// A file its build constraints exclude, such as one for !go1.18 beside one
// for go1.18, would count each function twice.
func baseFuncs(ctx context.Context, repo, base string) ([]goFunc, error) {
	out, err := gitRead(ctx, repo, "ls-tree", "-r", "--name-only", "-z", base)
	if err != nil {
		return nil, err
	}
	var funcs []goFunc
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := gitRead(ctx, repo, "show", base+":"+name)
		if err != nil {
			return nil, err
		}
		if !builds(name, src) {
			continue
		}
		funcs = append(funcs, fileFuncs(name, src)...)
	}
	return funcs, nil
}

// builds reports whether the default build context compiles the Go file
// name (a slash path) whose text is src: its name's _GOOS and _GOARCH
// suffixes and its //go:build line. A file whose constraints cannot be
// read counts.
func builds(name string, src []byte) bool {
	bc := build.Default
	bc.OpenFile = func(string) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(src)), nil }
	ok, err := bc.MatchFile(path.Dir(name), path.Base(name))
	return ok || err != nil
}

// fileFuncs lists the function declarations of one Go file; a file that
// does not parse has none.
func fileFuncs(name string, src []byte) []goFunc {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	var out []goFunc
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		fn := fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) == 1 {
			fn = recvName(fd.Recv.List[0].Type) + "." + fn
		}
		start, end := fset.Position(fd.Pos()), fset.Position(fd.End())
		if fd.Doc != nil {
			start = fset.Position(fd.Doc.Pos())
		}
		out = append(out, goFunc{pkg: f.Name.Name, name: fn, file: name, line: start.Line, end: end.Line,
			source: string(src[start.Offset:end.Offset])})
	}
	return out
}

func recvName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return recvName(t.X)
	case *ast.IndexExpr:
		return recvName(t.X)
	case *ast.IndexListExpr:
		return recvName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}

// HotTargets profiles the base's benchmarks in dir, a clean tree at base (a
// slot). It returns the n functions of the repository with the largest
// cumulative share of the CPU samples, test code aside, each with its
// profile. The filter selects the benchmarks ("" is all).
func HotTargets(ctx context.Context, repo, base, dir string, n int, filter string) ([]Target, error) {
	ranked, top, total, err := profileBase(ctx, repo, base, dir, filter)
	if err != nil {
		return nil, fmt.Errorf("find hot functions: %w", err)
	}
	funcs, err := baseFuncs(ctx, repo, base)
	if err != nil {
		return nil, err
	}
	var out []Target
	for _, f := range ranked {
		if len(out) == n {
			break
		}
		for _, g := range funcs {
			if f.is(dir, g.file, g.pkg+"."+g.name) {
				out = append(out, f.attach(g.target(), top, total))
				break
			}
		}
	}
	if len(out) == 0 {
		return nil, errors.New("find hot functions: no function of the repository shows in the base's profile: name a --target")
	}
	return out, nil
}

// ProfileTargets profiles the base's benchmarks in dir, as HotTargets
// does, and gives each named target its profile: its share, the profile's
// top functions, and its lines' costs. A target the profile does not see
// gets the top functions only.
func ProfileTargets(ctx context.Context, repo, base, dir, filter string, targets []Target) ([]Target, error) {
	ranked, top, total, err := profileBase(ctx, repo, base, dir, filter)
	if err != nil {
		return targets, fmt.Errorf("profile the targets: %w", err)
	}
	out := slices.Clone(targets)
	for i, t := range out {
		out[i].Profile = &TargetProfile{Top: top}
		for _, f := range ranked {
			if f.is(dir, t.File, t.Name) {
				out[i] = f.attach(t, top, total)
				break
			}
		}
	}
	return out, nil
}

// funcStat is one function's samples in the base's profiles.
type funcStat struct {
	name, file string // as the profile names them: import path, absolute file
	flat, cum  int64
	lines      map[int64]*[2]int64 // flat and cumulative samples by line
}

// is reports whether f is the function name (pkg.Func, pkg.T.Method) in
// file, a slash path from the root of dir, the tree that was profiled.
func (f *funcStat) is(dir, file, name string) bool {
	rel, err := filepath.Rel(dir, f.file)
	if err != nil || filepath.ToSlash(rel) != file {
		return false
	}
	return normalise(f.name[strings.LastIndex(f.name, "/")+1:]) == name
}

// attach returns t with f's profile.
func (f *funcStat) attach(t Target, top []FuncShare, total int64) Target {
	t.Profile = &TargetProfile{Share: share(f.cum, total), Top: top}
	for line, v := range f.lines {
		t.Profile.Lines = append(t.Profile.Lines, LineShare{Line: int(line), Flat: share(v[0], total), Cum: share(v[1], total)})
	}
	sort.Slice(t.Profile.Lines, func(i, j int) bool { return t.Profile.Lines[i].Line < t.Profile.Lines[j].Line })
	return t
}

// profileBase runs the benchmarks of every package at base that has some,
// once, with a CPU profile. It ranks the repository's non-test functions by
// cumulative samples. The top result is the profile's ten hottest
// functions, of any code.
func profileBase(ctx context.Context, repo, base, dir, filter string) (ranked []*funcStat, top []FuncShare, total int64, err error) {
	pkgs, err := benchmarkDirs(ctx, repo, base)
	if err != nil {
		return nil, nil, 0, err
	}
	if len(pkgs) == 0 {
		return nil, nil, 0, errors.New("the base has no Go benchmark to profile: name a --target")
	}
	tmp, err := os.MkdirTemp("", "optimizer-targets-")
	if err != nil {
		return nil, nil, 0, err
	}
	defer os.RemoveAll(tmp)
	bench := filter
	if bench == "" {
		bench = "."
	}
	var profs []*profile.Profile
	ran := false
	for i, pkg := range pkgs {
		out := filepath.Join(tmp, fmt.Sprintf("cpu%d.pprof", i))
		cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-bench", bench, "-benchtime", "1s",
			"-cpuprofile", out, "./"+pkg)
		cmd.Dir = dir
		b, err := cmd.CombinedOutput()
		if err != nil {
			return nil, nil, 0, fmt.Errorf("run the base's benchmarks in %s: %w\n%s", pkg, err, proc.Tail(b, 20))
		}
		ran = ran || benchLine.Match(b)
		p, err := readProfile(out)
		if err != nil {
			return nil, nil, 0, err
		}
		profs = append(profs, p)
	}
	if !ran {
		// A binary that ran none can still leave a sample or two of its
		// start-up in the profile: that is no profile of the benchmarks.
		return nil, nil, 0, fmt.Errorf("no benchmark of the base matches -bench %q", bench)
	}
	all, total := rankFuncs(profs)
	if total == 0 {
		return nil, nil, 0, errors.New("the profile of the base has no samples")
	}
	for _, f := range all[:min(10, len(all))] {
		top = append(top, FuncShare{Name: f.name, Flat: share(f.flat, total), Cum: share(f.cum, total)})
	}
	for _, f := range all {
		rel, err := filepath.Rel(dir, f.file)
		if err == nil && !strings.HasPrefix(rel, "..") && !strings.HasSuffix(rel, "_test.go") {
			ranked = append(ranked, f)
		}
	}
	return ranked, top, total, nil
}

// benchLine is a benchmark's result line in go test's output.
var benchLine = regexp.MustCompile(`(?m)^Benchmark\S*\s+\d+\s`)

func readProfile(file string) (*profile.Profile, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("read profile: %w", err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("read profile %s: %w", file, err)
	}
	return p, nil
}

// rankFuncs adds up every function's flat and cumulative CPU samples over
// profs, and sorts them by cumulative samples, most first.
func rankFuncs(profs []*profile.Profile) ([]*funcStat, int64) {
	fns := map[string]*funcStat{}
	var total int64
	for _, p := range profs {
		vi := len(p.SampleType) - 1 // cpu nanoseconds
		for _, s := range p.Sample {
			v := s.Value[vi]
			total += v
			seen := map[string]bool{}
			seenLine := map[*profile.Line]bool{}
			for li, loc := range s.Location {
				for i := range loc.Line {
					l := &loc.Line[i]
					if l.Function == nil {
						continue
					}
					name := l.Function.Name
					f := fns[name]
					if f == nil {
						f = &funcStat{name: name, file: l.Function.Filename, lines: map[int64]*[2]int64{}}
						fns[name] = f
					}
					line := f.lines[l.Line]
					if line == nil {
						line = new([2]int64)
						f.lines[l.Line] = line
					}
					if li == 0 && i == 0 {
						f.flat += v
						line[0] += v
					}
					if !seenLine[l] {
						line[1] += v
						seenLine[l] = true
					}
					if !seen[name] {
						f.cum += v
						seen[name] = true
					}
				}
			}
		}
	}
	all := make([]*funcStat, 0, len(fns))
	for _, f := range fns {
		all = append(all, f)
	}
	sort.Slice(all, func(i, j int) bool {
		return all[i].cum > all[j].cum || (all[i].cum == all[j].cum && all[i].name < all[j].name)
	})
	return all, total
}

// normalise turns a profile's pkg.(*T).Method into pkg.T.Method.
func normalise(name string) string {
	return strings.NewReplacer("(*", "", ")", "").Replace(name)
}

func share(v, total int64) float64 { return float64(v) / float64(total) }

// benchmarkDirs are the directories at base whose test files declare a
// benchmark.
func benchmarkDirs(ctx context.Context, repo, base string) ([]string, error) {
	out, err := gitRead(ctx, repo, "grep", "-l", "-z", "-e", "^func Benchmark", base, "--", "*_test.go")
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 1 {
			return nil, nil // no match
		}
		return nil, err
	}
	seen := map[string]bool{}
	var dirs []string
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		_, name, _ = strings.Cut(name, ":") // "base:path"
		d := path.Dir(name)
		if !seen[d] {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	sort.Strings(dirs)
	return dirs, nil
}

// gitRead runs a read-only git command in repo.
func gitRead(ctx context.Context, repo string, args ...string) ([]byte, error) {
	return gitcmd.Run(ctx, gitcmd.Cmd{Dir: repo, Args: args, ReadOnly: true})
}

// FindTargets profiles the base's benchmarks in a slot of pool. Without
// named targets (nil), it finds the hot hottest functions of the repository
// (HotTargets). With them, it finds what generators should know of them
// (ProfileTargets). A named target whose profile cannot be taken goes on
// without one. When say is set, it is told what FindTargets does, a line at
// a time.
func FindTargets(ctx context.Context, pool evaluator.Pool, repo, base, filter string, hot int, named []Target, say func(string)) ([]Target, error) {
	if say == nil {
		say = func(string) {}
	}
	if named == nil {
		say("no --target: profiling the base's benchmarks for the hottest functions")
	}
	s, err := pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("acquire a slot to profile the base: %w", err)
	}
	defer pool.Release(s)
	if named != nil {
		ts, err := ProfileTargets(ctx, repo, base, s.Dir(), filter, named)
		if err != nil {
			say(fmt.Sprintf("the targets go to generators without a profile: %v", err))
		}
		return ts, nil
	}
	ts, err := HotTargets(ctx, repo, base, s.Dir(), hot, filter)
	if err != nil {
		return nil, err
	}
	for _, t := range ts {
		say(fmt.Sprintf("target %s (%s:%d), %.0f%% of the base's CPU samples", t.Name, t.File, t.Line, 100*t.Profile.Share))
	}
	return ts, nil
}
