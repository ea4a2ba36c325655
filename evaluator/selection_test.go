package evaluator

import (
	"fmt"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
)

func TestPickWinner(t *testing.T) {
	// mk makes a faster candidate with a speedup, its interval and a change
	// of size bytes.
	mk := func(idx int, speedup, lo, hi float64, size int) *cand {
		return &cand{idx: idx,
			spec: candidate.Candidate{Name: string(rune('a' + idx)), Patch: []byte(strings.Repeat("x", size))},
			res:  CandidateResult{Verdict: VerdictFaster, Speedup: speedup, CI: &[2]float64{lo, hi}}}
	}
	// withFasterOn names n benchmarks as significantly faster.
	withFasterOn := func(c *cand, n int) *cand {
		for i := range n {
			c.res.FasterOn = append(c.res.FasterOn, fmt.Sprintf("BenchmarkX%d", i))
		}
		return c
	}
	// subset turns a candidate into a not-faster one that is faster on n
	// benchmarks and slower on none.
	subset := func(c *cand, n int) *cand {
		c.res.Verdict, c.res.Qualifier = VerdictNotFaster, QualifierFasterOnSome
		return withFasterOn(c, n)
	}
	as := func(c *cand, v Verdict) *cand {
		c.res.Verdict = v
		return c
	}
	tests := []struct {
		name  string
		cands []*cand
		want  int // index of the winner, -1 for none
	}{
		{"none", nil, -1},
		{"one", []*cand{mk(0, 1.2, 1.1, 1.3, 10)}, 0},
		{"clearly faster wins despite a larger diff",
			[]*cand{mk(0, 1.2, 1.1, 1.3, 10), mk(1, 2.0, 1.8, 2.2, 500)}, 1},
		{"overlapping: the smaller diff wins",
			[]*cand{mk(0, 2.0, 1.8, 2.2, 500), mk(1, 1.9, 1.7, 2.1, 10)}, 1},
		{"overlap is judged against the best one's interval",
			[]*cand{mk(0, 2.0, 1.9, 2.1, 500), mk(1, 1.5, 1.4, 1.89, 10)}, 0},
		{"overlapping with equal diffs: input order",
			[]*cand{mk(0, 1.9, 1.7, 2.1, 10), mk(1, 2.0, 1.8, 2.2, 10)}, 0},
		{"equal speedups, disjoint diffs: the smaller diff",
			[]*cand{mk(0, 2.0, 1.9, 2.1, 30), mk(1, 2.0, 1.9, 2.1, 20)}, 1},
		// Issue 13: 2.5× on 2 of 13 benchmarks, 1.17× [1.04×, 1.31×]
		// overall, which does not clear 1.05×: alone, it wins.
		{"faster on some benchmarks, alone",
			[]*cand{subset(mk(0, 1.17, 1.04, 1.31, 10), 2)}, 0},
		{"not faster, mixed and slower never win",
			[]*cand{as(mk(0, 1.17, 1.04, 1.31, 10), VerdictNotFaster), as(withFasterOn(mk(1, 2, 1.9, 2.1, 10), 1), VerdictMixed),
				as(mk(2, 0.5, 0.4, 0.6, 10), VerdictSlower)}, -1},
		{"faster on some beats a smaller faster-overall gain",
			[]*cand{mk(0, 1.06, 1.055, 1.07, 10), subset(mk(1, 1.17, 1.08, 1.31, 500), 2)}, 1},
		{"tied: faster overall before faster on some",
			[]*cand{subset(mk(0, 1.2, 1.04, 1.4, 10), 2), mk(1, 1.15, 1.1, 1.2, 500)}, 1},
		{"tied: faster on more benchmarks",
			[]*cand{withFasterOn(mk(0, 1.3, 1.2, 1.4, 10), 1), withFasterOn(mk(1, 1.25, 1.15, 1.35, 500), 3)}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := pickWinner(tt.cands)
			switch {
			case tt.want < 0 && got != nil:
				t.Errorf("winner %s, want none", got.spec.Name)
			case tt.want >= 0 && got != tt.cands[tt.want]:
				name := "none"
				if got != nil {
					name = got.spec.Name
				}
				t.Errorf("winner %s, want %s", name, tt.cands[tt.want].spec.Name)
			}
		})
	}
}
