package profiler

import (
	"fmt"
	"os"
	"strings"

	"github.com/google/pprof/profile"
)

// readProfile parses one pprof file, gzipped or not.
func readProfile(file string) (*profile.Profile, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", file, err)
	}
	if len(p.Sample) > 0 && !p.HasFunctions() {
		return nil, fmt.Errorf("%s: profile is not symbolized", file)
	}
	return p, nil
}

// fileLine is a line of a module-relative file.
type fileLine struct {
	file string
	line int
}

// funcInfo is what a summary needs to know about a function, beyond its
// costs.
type funcInfo struct {
	file    string // module-relative
	line    int
	class   class
	changed bool // defined in a file the winner changed
}

// stats is one profile, aggregated by function, and by line and unit for
// the changed files.
type stats struct {
	total    int64 // sum of the chosen sample value
	samples  int64 // number of samples
	flat     map[string]int64
	cum      map[string]int64
	funcs    map[string]funcInfo
	lineFlat map[fileLine]int64
	lineCum  map[fileLine]int64
	unitFlat map[*unit]int64
	unitCum  map[*unit]int64
	absFiles bool // some module file name stayed absolute
}

// pct is v as a percentage of the side's total.
func (s *stats) pct(v int64) float64 {
	if s.total == 0 {
		return 0
	}
	return 100 * float64(v) / float64(s.total)
}

// info returns what b, or else c, knows of a function.
func (s *stats) info(name string, c *stats) funcInfo {
	if fi, ok := s.funcs[name]; ok {
		return fi
	}
	return c.funcs[name]
}

func (s *stats) classOf(name string, c *stats) class { return s.info(name, c).class }

// asyncPreempt is the frame the runtime injects into a goroutine it
// preempts by signal. A sample that lands in it is time of the function it
// interrupted, the next frame, and is charged there. On a busy machine,
// where a tight loop is preempted often, it held 65% of a quadratic loop's
// samples.
const asyncPreempt = "runtime.asyncPreempt"

// scanner aggregates profiles. With skipRuntimeLeaf it charges a sample's
// flat value to its innermost frame outside the runtime. For allocations
// that is the function that called makeslice, not makeslice. With
// skipHarness it leaves out the samples of the test binary's own machinery
// (harness).
type scanner struct {
	names           *namer
	changed         map[string]bool
	skipRuntimeLeaf bool
	skipHarness     bool
}

// harness reports whether a sample is the test binary's machinery rather
// than the benchmark's work. The machinery is the profiler writing its
// profile (runtime/pprof, which compresses as it goes), and the testing
// package outside any benchmark: flag parsing, compiling -test.bench's
// pattern, starting the CPU profile. The benchmark's own frames run under
// testing.(*B); its goroutines and the package's init are under no testing
// frame at all. In the demo's winner, which no longer allocates, these were
// all its allocations: 37% testdeps.TestDeps.StartCPUProfile, 28%
// flate.NewWriter.
func harness(s *profile.Sample) bool {
	inTesting, inBench := false, false
	for _, loc := range s.Location {
		for _, ln := range loc.Line {
			if ln.Function == nil {
				continue
			}
			name := ln.Function.Name
			switch pkg := pkgPath(name); {
			case pkg == "runtime/pprof":
				return true
			case strings.HasPrefix(name, "testing.(*B)."):
				inBench = true
			case pkg == "testing", pkg == "testing/internal/testdeps":
				inTesting = true
			}
		}
	}
	return inTesting && !inBench
}

// valueIndex returns the index of sample type typ in p.
func valueIndex(p *profile.Profile, typ string) (int, error) {
	for i, st := range p.SampleType {
		if st.Type == typ {
			return i, nil
		}
	}
	return 0, fmt.Errorf("%w %s", ErrSampleType, typ)
}

// scan aggregates p's sample type typ. srcs, when not nil, holds the units
// of the changed files on this side, for per-line and per-function costs.
// A profile without samples is no error here: no allocation is an answer.
func (sc scanner) scan(p *profile.Profile, typ string, srcs map[string]*source) (*stats, error) {
	idx, err := valueIndex(p, typ)
	if err != nil {
		return nil, err
	}
	countIdx := -1
	if i, err := valueIndex(p, "samples"); err == nil {
		countIdx = i
	}
	st := &stats{
		flat: map[string]int64{}, cum: map[string]int64{}, funcs: map[string]funcInfo{},
		lineFlat: map[fileLine]int64{}, lineCum: map[fileLine]int64{},
		unitFlat: map[*unit]int64{}, unitCum: map[*unit]int64{},
	}
	seenFunc := map[string]bool{}
	seenLine := map[fileLine]bool{}
	seenUnit := map[*unit]bool{}
	for _, s := range p.Sample {
		if idx >= len(s.Value) {
			continue
		}
		if sc.skipHarness && harness(s) {
			continue
		}
		v := s.Value[idx]
		st.total += v
		if countIdx >= 0 && countIdx < len(s.Value) {
			st.samples += s.Value[countIdx]
		} else {
			st.samples++
		}
		clear(seenFunc)
		clear(seenLine)
		clear(seenUnit)
		first, charged := "", false
		leaf := true
		for _, loc := range s.Location {
			for _, ln := range loc.Line {
				if ln.Function == nil {
					continue
				}
				name := ln.Function.Name
				if leaf && name == asyncPreempt {
					continue // the time is the interrupted function's
				}
				fi := sc.funcInfo(st, ln.Function)
				if first == "" {
					first = name
				}
				if !charged && !(sc.skipRuntimeLeaf && fi.class == classRuntime) {
					st.flat[name] += v
					charged = true
				}
				if !seenFunc[name] {
					seenFunc[name] = true
					st.cum[name] += v
				}
				if fi.changed && srcs != nil {
					st.addLine(fileLine{fi.file, int(ln.Line)}, srcs[fi.file], v, leaf, seenLine, seenUnit)
				}
				leaf = false
			}
		}
		if !charged && first != "" {
			st.flat[first] += v
		}
	}
	return st, nil
}

// addLine charges v to a line of a changed file, and to the unit holding it:
// to flat when the line is the sample's leaf, to cum once per sample.
func (st *stats) addLine(fl fileLine, src *source, v int64, leaf bool, seenLine map[fileLine]bool, seenUnit map[*unit]bool) {
	u := src.unitAt(fl.line)
	if leaf {
		st.lineFlat[fl] += v
		if u != nil {
			st.unitFlat[u] += v
		}
	}
	if !seenLine[fl] {
		seenLine[fl] = true
		st.lineCum[fl] += v
	}
	if u != nil && !seenUnit[u] {
		seenUnit[u] = true
		st.unitCum[u] += v
	}
}

// funcInfo returns, and remembers, what st knows of fn.
func (sc scanner) funcInfo(st *stats, fn *profile.Function) funcInfo {
	if fi, ok := st.funcs[fn.Name]; ok {
		return fi
	}
	cls := sc.names.class(fn.Name, fn.Filename)
	rel, abs := sc.names.relFile(fn.Filename)
	if abs && cls == classModule {
		st.absFiles = true
	}
	fi := funcInfo{file: rel, line: int(fn.StartLine), class: cls,
		changed: cls == classModule && !abs && sc.changed[rel]}
	st.funcs[fn.Name] = fi
	return fi
}

// profileFiles returns the module-relative files named in the profiles'
// functions.
func profileFiles(n *namer, ps ...*profile.Profile) map[string]bool {
	m := map[string]bool{}
	for _, p := range ps {
		for _, fn := range p.Function {
			if rel, abs := n.relFile(fn.Filename); !abs {
				m[rel] = true
			}
		}
	}
	return m
}
