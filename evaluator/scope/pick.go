package scope

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/optimizer-dev/optimizer/evaluator/gobench"
)

// Bench is a top-level benchmark with what it executes at base.
type Bench struct {
	Pkg   string // import path
	Trace gobench.Trace
}

// Scope is the benchmarks a change is measured on, and why.
type Scope struct {
	// All is set when every benchmark runs: the change reaches beyond
	// functions (Change.Outside).
	All bool
	// Run are the indices, into Pick's benchmarks, of those to measure:
	// those that execute a changed function, and those whose coverage run
	// failed, since what they execute is unknown.
	Run []int
	// Closest are, when no benchmark executes a changed function, the
	// benchmarks nearest to the change. They execute the most of base's
	// functions in the changed files, or else the most code of their
	// packages.
	Closest []int
	// Why is a sentence that says which benchmarks and why, without
	// listing them.
	Why string
}

// maxClosest is how many closest benchmarks Pick names at most.
const maxClosest = 3

// Pick finds the benchmarks that execute a function ch changes.
func Pick(ch Change, benches []Bench) Scope {
	if len(ch.Outside) > 0 {
		return Scope{All: true, Why: "it changes code outside any function (" + listSome(ch.Outside, 3) +
			"), which can reach any benchmark: all of the packages it affects run"}
	}
	var (
		s       Scope
		hit     = map[Func]bool{}
		unknown []string
	)
	for i, b := range benches {
		if b.Trace.Failed != "" {
			s.Run = append(s.Run, i)
			unknown = append(unknown, b.Trace.Bench)
			continue
		}
		ran := false
		for _, f := range ch.Funcs {
			if b.Trace.Executes(f.File, f.Line, f.EndLine) {
				hit[f], ran = true, true
			}
		}
		if ran {
			s.Run = append(s.Run, i)
		}
	}
	var names []string
	for _, f := range ch.Funcs {
		if hit[f] {
			names = append(names, f.String())
		}
	}
	switch {
	case len(ch.Funcs) == 0:
		s.Why = "it changes no function of base (only new functions, blank lines, or test files that base's replace)"
	case len(names) == 0:
		s.Why = "no benchmark executes " + funcList(ch.Funcs)
	default:
		s.Why = "they execute " + listSome(names, 3)
		if missed := len(ch.Funcs) - len(names); missed > 0 {
			s.Why += fmt.Sprintf(" (no benchmark executes the %d other function(s) it changes)", missed)
		}
	}
	if len(unknown) > 0 {
		s.Why += fmt.Sprintf("; %s also run, since what they execute is unknown (their coverage run failed)", listSome(unknown, 3))
	}
	if len(names) == 0 {
		s.Closest = closest(ch, benches)
	}
	return s
}

// funcList names fs, a few of them.
func funcList(fs []Func) string {
	var names []string
	for _, f := range fs {
		names = append(names, f.String())
	}
	return listSome(names, 3)
}

// closest returns the benchmarks that execute the most of ch's sibling
// functions. When none executes any, it returns those that execute the most
// blocks of the changed files' packages. It returns at most maxClosest, in
// benches' order among equals.
func closest(ch Change, benches []Bench) []int {
	dirs := map[string]bool{}
	for _, f := range ch.Siblings {
		dirs[path.Dir(f.File)] = true
	}
	for _, f := range ch.Funcs {
		dirs[path.Dir(f.File)] = true
	}
	type scored struct{ i, fns, blocks int }
	var ss []scored
	for i, b := range benches {
		sc := scored{i: i}
		for _, f := range ch.Siblings {
			if b.Trace.Executes(f.File, f.Line, f.EndLine) {
				sc.fns++
			}
		}
		for _, bl := range b.Trace.Blocks {
			if dirs[path.Dir(bl.File)] {
				sc.blocks++
			}
		}
		if sc.fns > 0 || sc.blocks > 0 {
			ss = append(ss, sc)
		}
	}
	slices.SortStableFunc(ss, func(a, b scored) int {
		if c := cmp.Compare(b.fns, a.fns); c != 0 {
			return c
		}
		return cmp.Compare(b.blocks, a.blocks)
	})
	var out []int
	for _, sc := range ss[:min(len(ss), maxClosest)] {
		out = append(out, sc.i)
	}
	return out
}

// listSome joins up to n items, saying how many more there are.
func listSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}
