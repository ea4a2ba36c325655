package profiler

import (
	"fmt"
	"math"
	"path"
	"sort"
	"strings"

	"github.com/google/pprof/profile"
)

// Defaults for SummaryOptions.
const (
	DefaultTopN       = 10  // rows of module code in a top table
	DefaultTopOutside = 5   // rows naming code outside the module in a top table
	DefaultLineFuncs  = 5   // functions with a line table
	MinLineShare      = 0.5 // % of samples a changed function needs for a line table
	MaxFuncRows       = 40  // longer line tables keep only changed and sampled lines
	minTopShare       = 0.1 // % flat a function needs for a top row, unless changed
	fewSamples        = 100 // fewer samples than this on a side earn a warning
)

// SummaryOptions say what Summarize should look at and how to name it.
type SummaryOptions struct {
	// Candidate is the winner's name, copied to Summary.Candidate.
	Candidate string
	// ModulePath is the Go module's path (example.com/fixture). Top tables
	// keep the module's own functions and fold the rest. "" keeps every
	// function outside the standard library, with a warning.
	ModulePath string
	// Changed lists the files the winner changed, relative to the module
	// root, slash-separated. Functions defined in them get a line table.
	Changed []string
	// BaseSource and CandSource read a module-relative file at base and in
	// the winner. An error wrapping fs.ErrNotExist means the file does not
	// exist on that side (added or deleted by the winner). Nil readers, or
	// other errors, leave the line table without source text, with a warning.
	BaseSource, CandSource func(file string) ([]byte, error)
	// TopN is the number of module functions in a top table;
	// 0 means DefaultTopN. Functions of changed files are added to it.
	TopN int
	// TopOutside is the number of functions outside the module (the
	// standard library, dependencies, the runtime) named in a top table
	// before the rest is folded; 0 means DefaultTopOutside, -1 none.
	TopOutside int
	// LineFuncs is the number of functions with a line table;
	// 0 means DefaultLineFuncs.
	LineFuncs int
	// AllCode lists every function in the top tables instead of folding
	// code outside the module into (runtime) and (other).
	AllCode bool
	// BaseMem and CandMem are optional memory profiles
	// (-test.memprofile). When both are set, Summary.Alloc summarises
	// their alloc_space; a failure there is a warning, not an error.
	BaseMem, CandMem string
	// Roots are absolute directories (slots) that file names are made
	// relative to, for binaries built without -trimpath.
	Roots []string
}

// Summary is what the profiles of base and the winner say, in the shape of
// the report's JSON "profile" object. Field names are a contract: they may
// be added to, never renamed. A Summary is plain data, safe to share once
// built.
type Summary struct {
	Candidate string   `json:"candidate"`
	Files     []string `json:"files"` // the raw profiles, as passed to Summarize
	// SampleType is what the percentages share out: "cpu".
	SampleType string        `json:"sample_type"`
	Samples    Counts        `json:"samples"`
	Top        []FuncRow     `json:"top"`
	Lines      []LineRow     `json:"lines"`
	Alloc      *AllocSummary `json:"alloc,omitempty"`
	Warnings   []string      `json:"warnings,omitempty"`
	// Flame is base's and the winner's CPU samples merged into one call
	// tree, for a differential flame graph; empty when there is none.
	Flame []FlameFrame `json:"flame,omitempty"`
	// Changes are the FlameChanges functions whose self share changed
	// most, largest change first.
	Changes []FrameChange `json:"changes,omitempty"`
}

// Counts is a number on each side: samples, or bytes.
type Counts struct {
	Base int64 `json:"base"`
	Cand int64 `json:"candidate"`
}

// Share is a percentage (0 to 100) of the samples of each side: Base of
// the base profile's total, Cand of the winner's.
type Share struct {
	Base float64 `json:"base"`
	Cand float64 `json:"candidate"`
}

// FuncRow is one function in a top table, before and after.
type FuncRow struct {
	// Func is the function's name without its import path's directories
	// (fixture.Sum, sub.(*T).M), or RuntimeRow or OtherRow for folded code.
	Func string `json:"func"`
	File string `json:"file,omitempty"` // module-relative
	Line int    `json:"line,omitempty"` // where the function starts
	// Flat is the time in the function itself; for folded rows, the time in
	// any function of that kind.
	Flat Share `json:"flat"`
	// Cum is the time with the function on the stack. nil for folded rows,
	// where it would mean little (testing and runtime frames are on every
	// stack).
	Cum *Share `json:"cum,omitempty"`
	// Changed marks a function defined in a file the winner changed.
	Changed bool `json:"changed,omitempty"`
	// Class is "runtime" or "library" for a named function outside the
	// module (the standard library, testing, dependencies), "" for the
	// module's own and for folded rows.
	Class string `json:"class,omitempty"`
}

// LineRow is one source line of a changed function. The rows of one
// function are consecutive and follow its source. Base's lines and the
// winner's are aligned by a line diff:
//   - a line that did not change is one row holding both line numbers;
//   - a line only base has is Change "-" with CandLine 0;
//   - a line only the winner has is Change "+" with BaseLine 0.
//
// Long functions keep only changed and sampled lines (and the first and
// last); a gap in the line numbers marks the lines left out.
type LineRow struct {
	Func     string `json:"func"` // fixture.Sum; "" for a whole file that is not Go
	File     string `json:"file"` // module-relative
	Change   string `json:"change,omitempty"`
	BaseLine int    `json:"base_line,omitempty"`
	CandLine int    `json:"cand_line,omitempty"`
	Text     string `json:"text"` // the source line, "" when the source could not be read
	Flat     Share  `json:"flat"` // time on the line itself
	Cum      Share  `json:"cum"`  // time on the line, including the calls it makes
}

// AllocSummary is what two memory profiles say about allocation.
type AllocSummary struct {
	// SampleType is "alloc_space": bytes allocated over the whole run,
	// less what the test binary's own machinery allocates (the profiler,
	// the testing package outside the benchmarks).
	SampleType string    `json:"sample_type"`
	Bytes      Counts    `json:"bytes"`
	Top        []FuncRow `json:"top"`
}

// Summarize reads the CPU profiles of base and the winner (pprof files, as
// written by -test.cpuprofile) and summarises them. It reads the source of
// changed files through opts to show each line's text. The error is non-nil
// only when no summary can be made; lesser problems are Summary.Warnings.
func Summarize(base, cand string, opts SummaryOptions) (*Summary, error) {
	if opts.TopN <= 0 {
		opts.TopN = DefaultTopN
	}
	if opts.LineFuncs <= 0 {
		opts.LineFuncs = DefaultLineFuncs
	}
	if opts.TopOutside == 0 {
		opts.TopOutside = DefaultTopOutside
	}
	s := &Summary{Candidate: opts.Candidate, Files: []string{base, cand}, SampleType: "cpu",
		Top: []FuncRow{}, Lines: []LineRow{}}
	n := newNamer(opts.ModulePath, opts.Roots)
	if opts.ModulePath == "" {
		s.warnf("no module path: top tables keep all code outside the standard library")
	}
	changed := changedSet(opts.Changed)

	bp, err := readProfile(base)
	if err != nil {
		return nil, fmt.Errorf("read base profile: %w", err)
	}
	cp, err := readProfile(cand)
	if err != nil {
		return nil, fmt.Errorf("read winner profile: %w", err)
	}
	// Read only the changed files that the profiles name: a changed
	// README or data file has no samples to show.
	present := profileFiles(n, bp, cp)
	var files []string
	for f := range changed {
		if present[f] {
			files = append(files, f)
		}
	}
	sort.Strings(files)
	srcs := readSources(files, opts.BaseSource, opts.CandSource, n, s.warnf)
	sc := scanner{names: n, changed: changed}
	bs, err := sc.scan(bp, "cpu", srcs.base)
	if err == nil && bs.total == 0 {
		err = ErrNoSamples
	}
	if err != nil {
		return nil, fmt.Errorf("summarize base profile: %w", err)
	}
	cs, err := sc.scan(cp, "cpu", srcs.cand)
	if err == nil && cs.total == 0 {
		err = ErrNoSamples
	}
	if err != nil {
		return nil, fmt.Errorf("summarize winner profile: %w", err)
	}
	for _, x := range []struct {
		who string
		st  *stats
	}{{"base", bs}, {"winner", cs}} {
		if x.st.samples < fewSamples {
			s.warnf("the %s profile has only %d samples: shares are rough", x.who, x.st.samples)
		}
	}
	s.Samples = Counts{Base: bs.samples, Cand: cs.samples}
	if s.Flame, s.Changes, err = flame([2]*profile.Profile{bp, cp}, "cpu"); err != nil {
		s.warnf("flame graph: %v", err)
	}
	s.Top = topRows(bs, cs, opts.TopN, max(opts.TopOutside, 0), opts.AllCode)
	s.Lines = lineRows(srcs, bs, cs, opts.LineFuncs)
	if bs.absFiles || cs.absFiles {
		s.warnf("file names are absolute (binary built without -trimpath?): showing base names")
	}
	if opts.BaseMem != "" && opts.CandMem != "" {
		s.Files = append(s.Files, opts.BaseMem, opts.CandMem)
		a, err := summarizeAlloc(opts.BaseMem, opts.CandMem, n, changed, opts)
		if err != nil {
			s.warnf("allocations: %v", err)
		} else {
			s.Alloc = a
		}
	}
	return s, nil
}

// summarizeAlloc is Summarize's allocation part: top functions by the bytes
// they allocate.
func summarizeAlloc(base, cand string, n *namer, changed map[string]bool, opts SummaryOptions) (*AllocSummary, error) {
	bp, err := readProfile(base)
	if err != nil {
		return nil, fmt.Errorf("read base memory profile: %w", err)
	}
	cp, err := readProfile(cand)
	if err != nil {
		return nil, fmt.Errorf("read winner memory profile: %w", err)
	}
	sc := scanner{names: n, changed: changed, skipRuntimeLeaf: true, skipHarness: true}
	bs, err := sc.scan(bp, "alloc_space", nil)
	if err != nil {
		return nil, fmt.Errorf("summarize base memory profile: %w", err)
	}
	cs, err := sc.scan(cp, "alloc_space", nil)
	if err != nil {
		return nil, fmt.Errorf("summarize winner memory profile: %w", err)
	}
	return &AllocSummary{SampleType: "alloc_space", Bytes: Counts{Base: bs.total, Cand: cs.total},
		Top: topRows(bs, cs, opts.TopN, max(opts.TopOutside, 0), opts.AllCode)}, nil
}

// warnf adds a warning once.
func (s *Summary) warnf(format string, args ...any) {
	w := fmt.Sprintf(format, args...)
	for _, x := range s.Warnings {
		if x == w {
			return
		}
	}
	s.Warnings = append(s.Warnings, w)
}

// changedSet cleans the changed paths into a set.
func changedSet(files []string) map[string]bool {
	m := make(map[string]bool, len(files))
	for _, f := range files {
		f = path.Clean(toSlash(f))
		if f != "." && f != "" && !strings.HasPrefix(f, "../") {
			m[strings.TrimPrefix(f, "./")] = true
		}
	}
	return m
}

// topRows builds a top table, in this order:
//   - the module's functions ranked by the larger of their two flat shares;
//   - the functions of changed files that have time on the stack;
//   - the hottest functions outside the module by name (bytes.IndexByte,
//     runtime.mallocgc);
//   - the rest of the time outside the module, folded.
func topRows(b, c *stats, topN, outside int, all bool) []FuncRow {
	var cands, others []topCand
	seen := map[string]bool{}
	for _, st := range []*stats{b, c} {
		for name := range st.funcs {
			if seen[name] {
				continue
			}
			seen[name] = true
			flat := Share{b.pct(b.flat[name]), c.pct(c.flat[name])}
			cum := Share{b.pct(b.cum[name]), c.pct(c.cum[name])}
			k := topCand{name, b.classOf(name, c), flat, cum, max(flat.Base, flat.Cand), max(cum.Base, cum.Cand)}
			if k.cls != classModule && !all {
				others = append(others, k)
				continue
			}
			cands = append(cands, k)
		}
	}
	sortCands(cands)
	sortCands(others)
	rows := []FuncRow{}
	var extra []FuncRow
	for _, k := range cands {
		info := b.info(k.name, c)
		cum := roundShare(k.cum)
		row := FuncRow{Func: shortName(k.name), File: info.file, Line: info.line,
			Flat: roundShare(k.flat), Cum: &cum, Changed: info.changed}
		switch {
		case len(rows) < topN && k.rank >= minTopShare:
			rows = append(rows, row)
		case info.changed && k.rcum >= MinLineShare:
			extra = append(extra, row)
		}
	}
	rows = append(rows, extra...)
	folded := map[class]*Share{classRuntime: {}, classOther: {}}
	for _, k := range others {
		if outside > 0 && k.rank >= minTopShare {
			outside--
			cum := roundShare(k.cum)
			row := FuncRow{Func: shortName(k.name), Flat: roundShare(k.flat), Cum: &cum, Class: "library"}
			if k.cls == classRuntime {
				row.Class = "runtime"
			}
			rows = append(rows, row)
			continue
		}
		f := folded[k.cls]
		f.Base += k.flat.Base
		f.Cand += k.flat.Cand
	}
	for _, cls := range []class{classRuntime, classOther} {
		if f := folded[cls]; f.Base > 0 || f.Cand > 0 {
			name := RuntimeRow
			if cls == classOther {
				name = OtherRow
			}
			rows = append(rows, FuncRow{Func: name, Flat: roundShare(*f)})
		}
	}
	return rows
}

// topCand is a function that may get a row in a top table.
type topCand struct {
	name       string
	cls        class
	flat, cum  Share
	rank, rcum float64 // the larger side of flat and of cum
}

// sortCands sorts by rank, then cumulative rank, then name.
func sortCands(cands []topCand) {
	sort.Slice(cands, func(i, j int) bool {
		x, y := cands[i], cands[j]
		if x.rank != y.rank {
			return x.rank > y.rank
		}
		if x.rcum != y.rcum {
			return x.rcum > y.rcum
		}
		return x.name < y.name
	})
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

func roundShare(s Share) Share { return Share{round2(s.Base), round2(s.Cand)} }
