package gotest

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// MaxLine is the longest line the Parser keeps; the rest of a longer line is
// dropped.
const MaxLine = 64 << 10

// MaxFailureExcerpts is how many failing tests, and separately how many
// failing packages, keep an output excerpt in a Run: the first to fail in
// the stream. The others are counted in Run.OutputDropped. With excerpts
// of at most MaxExcerpt bytes, a Run holds well under a megabyte of output
// however many tests fail.
const MaxFailureExcerpts = 64

var (
	// ErrClosed is returned by Parser.Write after Result.
	ErrClosed = errors.New("write to a parser whose result was taken")
)

// event is one test2json event. Fields this package does not use are left
// out.
type event struct {
	Action      string
	Package     string
	Test        string
	Output      string
	ImportPath  string  // build-output, build-fail (Go 1.24+)
	FailedBuild string  // a package's fail event (Go 1.24+)
	Elapsed     float64 // seconds, on pass, fail and skip
}

// buildFailedLine matches the line go test prints for a package it could not
// build: "FAIL\tpkg [build failed]" or "FAIL\tpkg [setup failed]".
var buildFailedLine = regexp.MustCompile(`^FAIL\s+(\S+)\s+\[(?:build|setup) failed\]`)

// test is what the parser knows of a test that has started.
type test struct {
	pkg    string
	out    excerpt
	since  time.Time // when its run event, or its last cont event, was read
	paused bool      // t.Parallel: waiting for its parent to let it go on
	subs   bool      // a subtest of it has started
}

// pkg is what the parser knows of a package that has started.
type pkg struct {
	out         excerpt
	failed      int  // tests that failed
	buildFailed bool // a "[build failed]" line was seen
}

// Parser is an io.Writer that parses a go test -json stream as it arrives,
// in pieces of any size. Result ends the stream and returns the Run. Memory
// stays bounded by the number of tests, whatever the output's size. A Parser
// is safe for concurrent use.
type Parser struct {
	mu      sync.Mutex
	line    []byte // the partial line, at most MaxLine bytes
	long    bool   // the partial line was cut
	run     *Run
	done    bool
	running map[string]*test    // by key
	failed  map[string]*excerpt // output of failed tests and packages, by key
	pkgs    map[string]*pkg     // started and not ended
	build   map[string]*excerpt // build output by import path
	block   string              // the "# pkg" text block being read, if any
	text    excerpt             // other text lines
	kept    [2]int              // excerpts kept of failing tests [0] and packages [1]
	now     func() time.Time    // the clock that stamps a test's start (Running)
}

// NewParser returns a Parser ready for Write.
func NewParser() *Parser {
	return &Parser{
		run:     &Run{Tests: map[string]Status{}, Packages: map[string]Status{}, Output: map[string]string{}, Elapsed: map[string]float64{}},
		running: map[string]*test{},
		failed:  map[string]*excerpt{},
		pkgs:    map[string]*pkg{},
		build:   map[string]*excerpt{},
		now:     time.Now,
	}
}

// Write parses b. It never fails, except after Result.
func (p *Parser) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return 0, ErrClosed
	}
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			p.keep(b)
			break
		}
		p.keep(b[:i])
		p.handleLine()
		b = b[i+1:]
	}
	return n, nil
}

// keep adds b to the partial line, up to MaxLine bytes.
func (p *Parser) keep(b []byte) {
	if room := MaxLine - len(p.line); len(b) > room {
		b = b[:room]
		p.long = true
	}
	p.line = append(p.line, b...)
}

// handleLine handles the complete line in p.line.
func (p *Parser) handleLine() {
	line := bytes.TrimSuffix(p.line, []byte{'\r'})
	var ev event
	if !p.long && len(line) > 0 && line[0] == '{' && json.Unmarshal(line, &ev) == nil && ev.Action != "" {
		p.handleEvent(&ev)
	} else {
		s := string(line)
		if p.long {
			s += "…"
		}
		p.handleText(s)
	}
	p.line, p.long = p.line[:0], false
	if cap(p.line) > 4<<10 {
		p.line = nil // give back the room a long line took
	}
}

// handleText handles a line that is not an event: build output printed as
// text, or anything else that shared the stream.
func (p *Parser) handleText(line string) {
	if m := buildFailedLine.FindStringSubmatch(line); m != nil {
		p.buildFailedText(m[1])
		p.block = ""
		return
	}
	if h, ok := strings.CutPrefix(line, "# "); ok {
		p.block = headerPath(h)
	}
	if p.block != "" {
		p.buildOut(p.block).write(line + "\n")
		return
	}
	p.text.write(line + "\n")
}

// headerPath returns the package a "# pkg [pkg.test]" or "# [pkg]" header
// names.
func headerPath(h string) string {
	f, _, _ := strings.Cut(strings.TrimSpace(h), " ")
	return strings.Trim(f, "[]")
}

func (p *Parser) buildOut(path string) *excerpt {
	e := p.build[path]
	if e == nil {
		e = &excerpt{}
		p.build[path] = e
	}
	return e
}

// buildFailedText records a "FAIL pkg [build failed]" text line: when no
// JSON event ends that package, this is all the stream says of it.
func (p *Parser) buildFailedText(path string) {
	if g := p.pkgs[path]; g != nil {
		g.buildFailed = true // its fail event will follow
		return
	}
	if _, ok := p.run.Packages[path]; ok {
		return // it has ended already
	}
	p.pkg(path).buildFailed = true
	p.endPackage(path, StatusFail, "")
}

func (p *Parser) handleEvent(ev *event) {
	switch ev.Action {
	case "build-output":
		p.buildOut(ev.ImportPath).write(ev.Output)
	case "build-fail":
		// The package's fail event, with FailedBuild, says which package
		// this build failure fails.
	case "start":
		p.pkg(ev.Package)
	case "run":
		if ev.Test != "" {
			p.test(ev.Package, ev.Test)
		}
	case "pause", "cont":
		if t := p.running[Key(ev.Package, ev.Test)]; t != nil && ev.Test != "" {
			t.paused = ev.Action == "pause"
			t.since = p.now() // a parallel test's time at pause is not its own
		}
	case "output":
		p.output(ev)
	case "pass", "fail", "skip":
		if ev.Test != "" {
			key := Key(ev.Package, ev.Test)
			if ev.Action == "pass" {
				p.run.Elapsed[key] = ev.Elapsed
			}
			p.endTest(key, ev.Package, Status(ev.Action))
			return
		}
		p.endPackage(ev.Package, Status(ev.Action), ev.FailedBuild)
	}
	// bench and actions added later carry nothing to keep.
}

func (p *Parser) pkg(path string) *pkg {
	g := p.pkgs[path]
	if g == nil {
		g = &pkg{}
		p.pkgs[path] = g
	}
	return g
}

func (p *Parser) test(pkgPath, name string) *test {
	key := Key(pkgPath, name)
	t := p.running[key]
	if t == nil {
		if parent := p.parent(key); parent != nil {
			parent.subs = true
		}
		t = &test{pkg: pkgPath, since: p.now()}
		p.running[key] = t
		p.pkg(pkgPath) // a stream may lack start events
	}
	return t
}

func (p *Parser) output(ev *event) {
	if ev.Test == "" {
		g := p.pkg(ev.Package)
		g.out.write(ev.Output)
		if buildFailedLine.MatchString(ev.Output) {
			g.buildFailed = true
		}
		return
	}
	key := Key(ev.Package, ev.Test)
	if p.running[key] == nil {
		if e := p.failed[key]; e != nil {
			e.write(ev.Output) // late output of a failed test
			return
		}
		if _, ended := p.run.Tests[key]; ended {
			return
		}
	}
	p.test(ev.Package, ev.Test).out.write(ev.Output)
}

// endTest records a test's status. A failure is sticky: a test that fails
// in one of several runs (-count) fails.
func (p *Parser) endTest(key, pkgPath string, s Status) {
	t := p.running[key]
	delete(p.running, key)
	if p.run.Tests[key] == StatusFail {
		if e := p.failed[key]; e != nil && t != nil && s == StatusFail {
			e.append(&t.out)
		}
		return
	}
	p.run.Tests[key] = s
	if s != StatusFail {
		return
	}
	if t == nil {
		t = &test{pkg: pkgPath}
	}
	p.keepFailure(0, key, &t.out)
	p.pkg(pkgPath).failed++
	if parent := p.parent(key); parent != nil {
		parent.out.append(&t.out)
	}
}

// parent returns the running test that key is a subtest of, if any.
func (p *Parser) parent(key string) *test {
	for i := strings.LastIndexByte(key, '/'); i > 0; i = strings.LastIndexByte(key[:i], '/') {
		if t := p.running[key[:i]]; t != nil {
			return t
		}
	}
	return nil
}

// endPackage records a package's status. Tests of the package still running
// fail. A failure that no failing test explains, and a build failure, give
// the package an entry of its own in Tests.
func (p *Parser) endPackage(path string, s Status, failedBuild string) {
	g := p.pkg(path)
	for _, key := range p.sortedRunning() {
		if t := p.running[key]; t.pkg == path {
			t.out.note(unfinished(key, path))
			p.endTest(key, path, StatusFail)
		}
	}
	delete(p.pkgs, path)
	if old, seen := p.run.Packages[path]; seen && old == StatusFail {
		s = StatusFail // a package listed twice keeps its failure
	}
	p.run.Packages[path] = s
	if s != StatusFail {
		return
	}
	switch {
	case failedBuild != "" || g.buildFailed:
		if !slices.Contains(p.run.BuildFailed, path) {
			p.run.BuildFailed = append(p.run.BuildFailed, path)
		}
		p.packageFailure(path, p.buildExcerpt(path, failedBuild, g))
	case g.failed == 0:
		p.packageFailure(path, &g.out)
	}
}

// unfinished is the note that a test of pkg, key, did not finish, naming
// it. A parent's excerpt collects its subtests', and a hang's shows which
// of them was still running ("(TestSum/one did not finish)").
func unfinished(key, pkg string) string {
	name := key
	if pkg != "" {
		name = strings.TrimPrefix(key, pkg+".")
	}
	return "(" + name + " did not finish)"
}

func (p *Parser) packageFailure(path string, out *excerpt) {
	if p.run.Tests[path] == StatusFail {
		return
	}
	p.run.Tests[path] = StatusFail
	p.keepFailure(1, path, out)
}

// keepFailure keeps the excerpt of a failing test (kind 0) or package (kind
// 1), unless MaxFailureExcerpts of that kind are kept already. Then only
// the count of dropped excerpts grows, and late output of key is dropped
// too.
func (p *Parser) keepFailure(kind int, key string, out *excerpt) {
	if p.kept[kind] >= MaxFailureExcerpts {
		p.run.OutputDropped++
		return
	}
	p.kept[kind]++
	p.failed[key] = out
}

// buildExcerpt finds the build output that explains why path failed to
// build: the failed build's, the "# path" block's, or else the package's own.
func (p *Parser) buildExcerpt(path, failedBuild string, g *pkg) *excerpt {
	for _, k := range []string{failedBuild, headerPath(failedBuild), path} {
		if e := p.build[k]; k != "" && e != nil {
			return e
		}
	}
	return &g.out
}

// sortedRunning returns the running tests' keys in reverse order: subtests
// before their parents, so that parents collect their excerpts, and ending
// them is deterministic.
func (p *Parser) sortedRunning() []string {
	keys := make([]string, 0, len(p.running))
	for k := range p.running {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	slices.Reverse(keys)
	return keys
}

// A Running test is one that has started and not ended, as the stream read
// so far says.
type Running struct {
	Key   string    // Key(importpath, test)
	Since time.Time // when the parser read its start, or its last resumption
	// Subtests is set once a subtest of it has started. The elapsed time
	// go test reports for such a test leaves out the time its parallel
	// subtests run, though it is running all that time.
	Subtests bool
}

// Running lists the tests running now, subtests with their parents, sorted
// by key. A parallel test waiting for its turn (paused) is left out; one
// that goes on counts from then. Since is when the parser read the event,
// not the event's own time. The go command holds back the output of all but
// one package at a time, and a test whose start arrives late has been seen
// running only since.
func (p *Parser) Running() []Running {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Running
	for key, t := range p.running {
		if !t.paused {
			out = append(out, Running{Key: key, Since: t.since, Subtests: t.subs})
		}
	}
	slices.SortFunc(out, func(a, b Running) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// Result ends the stream and returns what it held. A partial last line is
// parsed; tests and packages that started and never ended fail. Later calls
// return the same Run, and Write fails with ErrClosed.
func (p *Parser) Result() *Run {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return p.run
	}
	if len(p.line) > 0 || p.long {
		p.handleLine()
	}
	p.done = true
	paths := make([]string, 0, len(p.pkgs))
	for path := range p.pkgs {
		paths = append(paths, path)
	}
	slices.Sort(paths)
	for _, path := range paths {
		p.pkgs[path].out.note("(the package did not finish)")
		p.endPackage(path, StatusFail, "")
	}
	for _, key := range p.sortedRunning() { // tests of packages that never started
		t := p.running[key]
		t.out.note(unfinished(key, t.pkg))
		p.endTest(key, t.pkg, StatusFail)
	}
	for key, e := range p.failed {
		p.run.Output[key] = e.String()
	}
	slices.Sort(p.run.BuildFailed)
	p.run.Text = p.text.String()
	if len(p.run.Elapsed) == 0 {
		p.run.Elapsed = nil // as a Run read back from JSON has it
	}
	p.run.count()
	p.running, p.pkgs, p.failed, p.build = nil, nil, nil, nil
	return p.run
}
