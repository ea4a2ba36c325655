package dashboard

import "strings"

// maxDiffLines is how many lines of a diff a page shows.
const maxDiffLines = 400

// diffLine is one line of a unified diff, with the class that colours it.
type diffLine struct {
	Class, Text string
}

// diffLines splits a unified diff into classed lines: file headers, hunk
// headers, additions, deletions and context. A longer diff is cut, with a
// last line that says how many lines were left out.
func diffLines(diff string) []diffLine {
	var out []diffLine
	all := lines(diff)
	for i, l := range all {
		if i == maxDiffLines {
			out = append(out, diffLine{Class: "more", Text: "… " + itoa(len(all)-i) + " more lines"})
			break
		}
		out = append(out, diffLine{Class: diffClass(l), Text: l})
	}
	return out
}

func diffClass(l string) string {
	switch {
	case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "diff "), strings.HasPrefix(l, "index "):
		return "file"
	case strings.HasPrefix(l, "@@"):
		return "hunk"
	case strings.HasPrefix(l, "+"):
		return "add"
	case strings.HasPrefix(l, "-"):
		return "del"
	}
	return "ctx"
}
