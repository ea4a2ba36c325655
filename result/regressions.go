package result

import (
	"fmt"
	"strings"
)

// Regressions is the regression gate (optimizer run --fail-on-regression):
// the candidates that are slower or mixed, or have any benchmark
// significantly slower by more than the threshold whatever their verdict,
// each with why, in the report's order. None is a pass.
func (r *Report) Regressions() []string {
	var names []string
	for _, c := range r.Candidates {
		switch {
		case c.Verdict == VerdictSlower || c.Verdict == VerdictMixed:
			names = append(names, fmt.Sprintf("%s (%s)", c.Name, c.Verdict))
		case len(c.SlowerOn) > 0:
			names = append(names, fmt.Sprintf("%s (%s, but slower on %s)", c.Name, c.Verdict, strings.Join(c.SlowerOn, ", ")))
		}
	}
	return names
}
