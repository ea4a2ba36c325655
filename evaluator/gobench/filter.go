package gobench

import (
	"fmt"
	"regexp"
	"strings"
)

// Filter selects benchmarks by their full names, sub-benchmarks included,
// the way "go test -bench" does. The expression is split at each slash that
// is not inside brackets or parentheses. Each part must match the name's
// part at the same level, as an unanchored regexp. A name with more levels
// than the expression is matched by its first parts. One with fewer is not
// a match: Go runs it only to find its sub-benchmarks. As in Go, a "|"
// outside brackets and parentheses separates whole alternatives: "A/x|B/y".
// A Filter is immutable and safe for concurrent use.
type Filter struct {
	expr string
	alts [][]*regexp.Regexp
}

// NewFilter compiles expr, or returns an error naming the part that does
// not compile.
func NewFilter(expr string) (*Filter, error) {
	f := &Filter{expr: expr}
	for _, alt := range split(expr, '|') {
		var parts []*regexp.Regexp
		for i, p := range splitLevels(alt) {
			re, err := regexp.Compile(p)
			if err != nil {
				return nil, fmt.Errorf("part %d of %q: %w", i+1, alt, err)
			}
			parts = append(parts, re)
		}
		f.alts = append(f.alts, parts)
	}
	return f, nil
}

// String returns the expression.
func (f *Filter) String() string { return f.expr }

// Match reports whether the benchmark with this full name
// ("BenchmarkX/n=10") is selected.
func (f *Filter) Match(name string) bool {
	levels := strings.Split(name, "/")
	for _, parts := range f.alts {
		if matchLevels(parts, levels) {
			return true
		}
	}
	return len(f.alts) == 0
}

func matchLevels(parts []*regexp.Regexp, levels []string) bool {
	if len(levels) < len(parts) {
		return false
	}
	for i, re := range parts {
		if !re.MatchString(levels[i]) {
			return false
		}
	}
	return true
}

// MatchTop reports whether the top-level benchmark name, or some
// sub-benchmark it may have, can be selected: its name matches the first
// part of an alternative.
func (f *Filter) MatchTop(name string) bool {
	for _, parts := range f.alts {
		if len(parts) == 0 || parts[0].MatchString(name) {
			return true
		}
	}
	return len(f.alts) == 0
}

// Pattern returns the -test.bench pattern that runs the top-level benchmark
// name, and of its sub-benchmarks only those f can select (nil f: all;
// with alternatives, all, and Match picks).
func (f *Filter) Pattern(name string) string {
	p := "^" + regexp.QuoteMeta(name) + "$"
	if f != nil && len(f.alts) == 1 {
		if rest := splitLevels(f.expr); len(rest) > 1 {
			p += "/" + strings.Join(rest[1:], "/")
		}
	}
	return p
}

// Pattern returns the -test.bench pattern that runs exactly the benchmark
// with this full name and, when it has sub-benchmarks of its own, those.
// Each level is anchored and quoted. The last level also accepts a "-N"
// ending, since a name read back from output may have lost one (see
// Measurement).
func Pattern(name string) string {
	levels := strings.Split(name, "/")
	for i, l := range levels {
		levels[i] = "^" + regexp.QuoteMeta(l) + "$"
	}
	if n := len(levels); n > 1 {
		levels[n-1] = strings.TrimSuffix(levels[n-1], "$") + "(-[0-9]+)?$"
	}
	return strings.Join(levels, "/")
}

// splitLevels splits a -bench expression at the slashes that separate
// levels: not those inside [...] or (...), nor an escaped one.
func splitLevels(expr string) []string { return split(expr, '/') }

// split splits expr at each sep outside [...] and (...), not escaped.
func split(expr string, sep byte) []string {
	if expr == "" {
		return nil
	}
	var (
		parts []string
		start int
		depth int // open parentheses
		class bool
	)
	for i := 0; i < len(expr); i++ {
		switch c := expr[i]; {
		case c == '\\':
			i++
		case class:
			class = c != ']'
		case c == '[':
			class = true
		case c == '(':
			depth++
		case c == ')':
			depth = max(depth-1, 0)
		case c == sep && depth == 0:
			parts = append(parts, expr[start:i])
			start = i + 1
		}
	}
	return append(parts, expr[start:])
}
