package evaluator

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/evaluator/measure"
	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/result"
	"github.com/optimizer-dev/optimizer/testdata"
)

// TestRun_NoOpsNeverWin judges the no-op candidate set (issue 36). They are
// a file that only imports net/http, a file whose init() does file I/O,
// SumSquares moved to another file, and padding that moves its code. They
// are never faster nor the winner. Nor are they faster on any benchmark,
// unless called layout-sensitive. A real 2x change in the same job is the
// winner. It measures whatever load the machine has. Under load, initio
// gained until counts were calibrated on CPU time (docs/measuring.md,
// "Blocking at start-up, measured").
func TestRun_NoOpsNeverWin(t *testing.T) {
	testenv.Once(t) // builds and benchmarks five candidates: 1-5 min, with the load
	t.Logf("at the start: %s", measure.LoadAverage())
	defer func() { t.Logf("at the end: %s", measure.LoadAverage()) }()
	h := newFixtureHarness(t)
	dir := t.TempDir()
	if err := os.CopyFS(dir, testdata.NoOp); err != nil {
		t.Fatal(err)
	}
	cands, err := candidate.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := h.run(t, context.Background(), 2, Options{
		Candidates: cands, Timeout: 3 * time.Minute, MaxPairs: 20,
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]result.CandidateResult{}
	for _, c := range rep.Candidates {
		got[c.Name] = c
		t.Logf("%s: %s %.3fx %v, %d pairs, faster on %v", c.Name, c.Verdict, c.Speedup, c.CI, c.Pairs, c.FasterOn)
		logPairs(t, h, rep.Job, c.Name)
	}
	for _, want := range testdata.NoOpCandidates {
		c, ok := got[want.Name]
		switch {
		case !ok:
			t.Errorf("%s: not in the report", want.Name)
		case want.Verdict == "winner" && c.Verdict != result.VerdictWinner:
			t.Errorf("%s (%s): %s, want winner", want.Name, want.About, c.Verdict)
		case want.Verdict != "winner" && (c.Verdict.Info().Faster || len(c.FasterOn) > 0 && c.Verdict != result.VerdictLayoutSensitive):
			t.Errorf("%s (%s) is a no-op but was %s, faster on %v", want.Name, want.About, c.Verdict, c.FasterOn)
		}
	}
}

// logPairs logs a candidate's time pairs in measuring order, so that a
// failure shows what the samples were. For each it logs which side ran
// first, both times, their ratio and the other work on the CPU.
func logPairs(t *testing.T, h *harness, job, name string) {
	rows, err := h.db.BenchSamples(context.Background(), job, name)
	if err != nil {
		t.Fatal(err)
	}
	type pair struct {
		first      string
		base, cand float64
		other      [2]float64
	}
	pairs := map[int]*pair{}
	var rounds []int
	for _, r := range rows {
		if r.Unit != "sec/op" {
			continue
		}
		p := pairs[r.Round]
		if p == nil {
			p = &pair{first: r.Side}
			pairs[r.Round] = p
			rounds = append(rounds, r.Round)
		}
		if r.Side == "base" {
			p.base, p.other[0] = r.Value, r.OtherCPU
		} else {
			p.cand, p.other[1] = r.Value, r.OtherCPU
		}
	}
	for _, r := range rounds {
		p := pairs[r]
		t.Logf("  %s pair %d, %s first: base %.0f us, candidate %.0f us, %.2fx, other work %.2f/%.2f",
			name, r, p.first, p.base*1e6, p.cand*1e6, p.base/p.cand, p.other[0], p.other[1])
	}
}
