package gobench

import (
	"regexp"
	"strings"
)

// Restrict returns a filter expression that selects what expr selects
// ("" is everything) among the top-level benchmarks names, and no other
// top-level benchmark. Each alternative of expr keeps its sub-benchmark
// parts; one whose first part matches none of names is dropped. When none
// is left, the expression matches no benchmark. expr must compile
// (NewFilter).
func Restrict(expr string, names []string) string {
	if expr == "" {
		return topOf(names)
	}
	var alts []string
	for _, alt := range split(expr, '|') {
		parts := splitLevels(alt)
		var keep []string
		for _, n := range names {
			if len(parts) == 0 || regexp.MustCompile(parts[0]).MatchString(n) {
				keep = append(keep, n)
			}
		}
		if len(keep) == 0 {
			continue
		}
		if len(parts) == 0 {
			parts = []string{""}
		}
		alts = append(alts, strings.Join(append([]string{topOf(keep)}, parts[1:]...), "/"))
	}
	if len(alts) == 0 {
		return topOf(nil)
	}
	return strings.Join(alts, "|")
}

// topOf is the first level of an expression that matches exactly names:
// ^(?:A|B)$, or ^$ for none, which no benchmark's name matches.
func topOf(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = regexp.QuoteMeta(n)
	}
	if len(q) == 0 {
		return "^$"
	}
	return "^(?:" + strings.Join(q, "|") + ")$"
}
