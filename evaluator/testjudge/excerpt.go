package testjudge

import (
	"fmt"
	"strings"

	"github.com/optimizer-dev/optimizer/evaluator/gotest"
	"github.com/optimizer-dev/optimizer/excerpt"
)

// Excerpts joins the recorded output of the first five named tests or
// packages that have some, falling back to the tail of the whole output. A
// run keeps the output of its first gotest.MaxFailureExcerpts failures
// only. A subtest whose output a test shown before it already holds is not
// shown again. A parent's output collects its failing subtests'
// (gotest.Parser).
func Excerpts(run *gotest.Run, names []string, whole string) string {
	var b strings.Builder
	var shown []string // the names shown
	for _, n := range names {
		s := strings.TrimRight(run.Output[n], "\n")
		if s == "" || len(shown) >= 5 || heldBy(run, shown, n, s) {
			continue
		}
		fmt.Fprintf(&b, "--- %s\n%s\n", n, s)
		shown = append(shown, n)
	}
	if b.Len() == 0 {
		return excerpt.Tail(gotest.Decode(whole), 40)
	}
	return excerpt.Cap(excerpt.Strip(b.String()), 8<<10)
}

// heldBy says whether the output of one of shown that is an ancestor of
// test n holds n's output s.
func heldBy(run *gotest.Run, shown []string, n, s string) bool {
	for _, m := range shown {
		if strings.HasPrefix(n, m+"/") && strings.Contains(run.Output[m], s) {
			return true
		}
	}
	return false
}

// First is the first n of s, or all of s.
func First(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
