package evaluator

import (
	"context"
	"fmt"
	"strings"

	"github.com/optimizer-dev/optimizer/evaluator/hackcheck"
	"github.com/optimizer-dev/optimizer/evaluator/measure"
	"github.com/optimizer-dev/optimizer/evaluator/resultcache"
	"github.com/optimizer-dev/optimizer/store"
)

// firstSampler times a lone first iteration of each benchmark on a side
// (measure.GoSampler).
type firstSampler interface {
	First(ctx context.Context, s measure.Side) ([]measure.Metric, error)
}

var _ firstSampler = (*measure.GoSampler)(nil)

// firstRuns is how many fresh processes of each side time a lone first
// iteration for the hack check. Up to maxFirstRuns run where the first
// ones are too noisy to judge (hackcheck.Open); only a loaded machine
// needs them.
const (
	firstRuns    = 5
	maxFirstRuns = 3 * firstRuns
)

// checkHacks runs the hack check (package hackcheck) on a candidate its
// series called faster, on Go benchmarks, while the job still holds the
// machine. Each side's benchmarks run firstRuns times for one iteration,
// or more while the times are too noisy to judge. A candidate whose
// speedup comes from not doing the work is suspect. The first iterations
// are kept beside its pairs, for a job that reuses them.
func (j *job) checkHacks(ctx context.Context, c *cand, smp measure.Sampler) {
	g, ok := smp.(firstSampler)
	if !ok || !j.claimsFaster(c) {
		return
	}
	at := map[string]int{}
	var firsts []resultcache.First
	for n := 0; n < firstRuns || n < maxFirstRuns && len(hackcheck.Open(j.hackBenches(c, firsts), hackcheck.Floor())) > 0; n++ {
		for _, s := range []measure.Side{measure.Base, measure.Cand} {
			ms, err := g.First(ctx, s)
			if err != nil {
				j.log.Debug("hack check", "candidate", c.spec.Name, "err", err)
				if ctx.Err() == nil {
					j.mu.Lock()
					c.res.AddNote("the hack check did not run: " + err.Error())
					j.mu.Unlock()
				}
				return
			}
			for _, m := range ms {
				if m.Unit != "sec/op" {
					continue
				}
				i, ok := at[m.Bench]
				if !ok {
					i, at[m.Bench] = len(firsts), len(firsts)
					firsts = append(firsts, resultcache.First{Bench: m.Bench})
				}
				if s == measure.Base {
					firsts[i].Base = append(firsts[i].Base, m.Value)
				} else {
					firsts[i].Cand = append(firsts[i].Cand, m.Value)
				}
			}
		}
	}
	if key := resultcache.FirstsKey(c.sourceKey); key != "" && ctx.Err() == nil {
		j.putCache(ctx, store.CacheFirsts, key, c.spec.Name, firsts)
	}
	j.judgeHacks(c, firsts)
}

// claimsFaster reports whether c's verdict so far calls it faster, on all
// its benchmarks or on some.
func (j *job) claimsFaster(c *cand) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return c.res.Verdict == VerdictFaster || c.res.Qualifier == QualifierFasterOnSome
}

// judgeHacks makes c suspect when its series and the first iterations
// timed of it show a speedup that comes from not doing the work. Its note
// names the benchmarks whose first iterations were too noisy to judge.
func (j *job) judgeHacks(c *cand, firsts []resultcache.First) {
	if !j.claimsFaster(c) {
		return
	}
	benches := j.hackBenches(c, firsts)
	if open := hackcheck.Open(benches, hackcheck.Floor()); len(open) > 0 {
		j.mu.Lock()
		c.res.AddNote(fmt.Sprintf("the hack check cannot tell whether %s keeps a result across iterations: base's first iterations vary too much",
			strings.Join(open, ", ")))
		j.mu.Unlock()
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
	c.res.AddNote(fmt.Sprintf("faster by not doing the work on %s", strings.Join(names, ", ")))
	j.mu.Unlock()
}

// hackBenches is what the hack check knows of c's timed benchmarks: its
// series' centres and the first iterations timed so far.
func (j *job) hackBenches(c *cand, firsts []resultcache.First) []hackcheck.Bench {
	j.mu.Lock()
	res := c.res
	j.mu.Unlock()
	var benches []hackcheck.Bench
	for _, b := range res.Benchmarks {
		if b.Aside() || b.Unit != "sec/op" {
			continue
		}
		hb := hackcheck.Bench{Name: b.Name, BaseOp: b.Base, CandOp: b.Candidate}
		for _, f := range firsts {
			if f.Bench == b.Name {
				hb.BaseFirst, hb.CandFirst = f.Base, f.Cand
			}
		}
		benches = append(benches, hb)
	}
	return benches
}
