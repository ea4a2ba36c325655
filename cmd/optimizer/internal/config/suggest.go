package config

import (
	"cmp"
	"slices"

	"github.com/spf13/pflag"
)

// ClosestFlag is the first of ClosestFlags, or "" when there is none.
func ClosestFlag(fs *pflag.FlagSet, name string) string {
	if near := ClosestFlags(fs, name); len(near) > 0 {
		return near[0]
	}
	return ""
}

// ClosestFlags are the names of the flags in fs that name most likely
// mistypes, best first. A flag qualifies when it is at most two edits away
// from the whole name, or from its start as long as name (--paralel for
// --parallel-candidates). Only the flags at the smallest distance are kept.
// Among them a whole name comes before a start (--candidate: candidates,
// then candidate-ref). At most three are returned. Hidden flags are never
// suggested.
func ClosestFlags(fs *pflag.FlagSet, name string) []string {
	type near struct {
		name   string
		d      int
		prefix bool // only the start of the name is that close
	}
	var all []near
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		n := near{name: f.Name, d: editDistance(name, f.Name)}
		if len(name) >= 4 && len(f.Name) > len(name) {
			if d := editDistance(name, f.Name[:len(name)]) + 1; d < n.d {
				n.d, n.prefix = d, true
			}
		}
		if n.d < 3 {
			all = append(all, n)
		}
	})
	slices.SortStableFunc(all, func(a, b near) int {
		if c := cmp.Compare(a.d, b.d); c != 0 {
			return c
		}
		if a.prefix != b.prefix {
			if a.prefix {
				return 1
			}
			return -1
		}
		return cmp.Compare(len(a.name), len(b.name))
	})
	var out []string
	for _, n := range all {
		if n.d == all[0].d && len(out) < 3 {
			out = append(out, n.name)
		}
	}
	return out
}

// editDistance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and swaps of two neighbours.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
