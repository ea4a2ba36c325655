package result

import (
	"fmt"
	"strings"
)

// Regressions is the gate of optimizer run --fail-on-regression. It names
// the candidates that are slower or mixed, or that have any benchmark
// significantly slower beyond the threshold, each with why. None is a pass.
func (r *Report) Regressions() []string {
	var names []string
	for _, c := range r.Candidates {
		switch {
		case c.Verdict.Info().Regression:
			names = append(names, fmt.Sprintf("%s (%s)", c.Name, c.Verdict))
		case len(c.SlowerOn) > 0:
			names = append(names, fmt.Sprintf("%s (%s, but slower on %s)", c.Name, c.Verdict, strings.Join(c.SlowerOn, ", ")))
		}
	}
	return names
}
