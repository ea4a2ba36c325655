package evaluator

import (
	"context"
	"fmt"
	"strings"

	"github.com/optimizer-dev/optimizer/evaluator/hackcheck"
	"github.com/optimizer-dev/optimizer/evaluator/measure"
)

// firstSampler times a lone first iteration of each benchmark on a side
// (measure.GoSampler).
type firstSampler interface {
	First(ctx context.Context, s measure.Side) ([]measure.Metric, error)
}

var _ firstSampler = (*measure.GoSampler)(nil)

// firstRuns is how many fresh processes of each side time a lone first
// iteration for the hack check.
const firstRuns = 5

// checkHacks runs the hack check (package hackcheck) on a candidate its
// series called faster, on Go benchmarks, while the job still holds the
// machine. Each side's benchmarks run firstRuns times for one iteration. A
// candidate whose speedup comes from not doing the work is suspect.
func (j *job) checkHacks(ctx context.Context, c *cand, smp measure.Sampler) {
	g, ok := smp.(firstSampler)
	j.mu.Lock()
	res := c.res
	j.mu.Unlock()
	if !ok || !(res.Verdict == VerdictFaster || res.Qualifier == QualifierFasterOnSome) {
		return
	}
	var benches []hackcheck.Bench
	at := map[string]int{}
	for _, b := range res.Benchmarks {
		if !b.Aside() && b.Unit == "sec/op" {
			at[b.Name] = len(benches)
			benches = append(benches, hackcheck.Bench{Name: b.Name, BaseOp: b.Base, CandOp: b.Candidate})
		}
	}
	for range firstRuns {
		for _, s := range []measure.Side{measure.Base, measure.Cand} {
			ms, err := g.First(ctx, s)
			if err != nil {
				j.log.Debug("hack check", "candidate", c.spec.Name, "err", err)
				return
			}
			for _, m := range ms {
				i, ok := at[m.Bench]
				if !ok || m.Unit != "sec/op" {
					continue
				}
				if s == measure.Base {
					benches[i].BaseFirst = append(benches[i].BaseFirst, m.Value)
				} else {
					benches[i].CandFirst = append(benches[i].CandFirst, m.Value)
				}
			}
		}
	}
	hacks := hackcheck.Check(benches, hackcheck.Floor())
	if len(hacks) == 0 {
		return
	}
	var names []string
	for _, h := range hacks {
		names = append(names, h.Bench+" ("+h.Kind+")")
	}
	j.mu.Lock()
	c.res.Verdict, c.res.Qualifier, c.res.Hacks = VerdictSuspect, "", hacks
	c.res.Note = joinNote(c.res.Note, fmt.Sprintf("faster by not doing the work on %s", strings.Join(names, ", ")))
	j.mu.Unlock()
}
