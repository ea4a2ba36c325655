package evaluator

import (
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
)

func TestPickWinner(t *testing.T) {
	// mk makes a faster candidate with a speedup, its interval and a change
	// of size bytes.
	mk := func(idx int, speedup, lo, hi float64, size int) *cand {
		return &cand{idx: idx,
			c:   candidate.Candidate{Name: string(rune('a' + idx)), Patch: []byte(strings.Repeat("x", size))},
			res: CandidateResult{Verdict: VerdictFaster, Speedup: speedup, CI: &[2]float64{lo, hi}}}
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := pickWinner(tt.cands)
			switch {
			case tt.want < 0 && got != nil:
				t.Errorf("winner %s, want none", got.c.Name)
			case tt.want >= 0 && got != tt.cands[tt.want]:
				name := "none"
				if got != nil {
					name = got.c.Name
				}
				t.Errorf("winner %s, want %s", name, tt.cands[tt.want].c.Name)
			}
		})
	}
}
