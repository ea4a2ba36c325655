package scope

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/gobench"
	"github.com/optimizer-dev/optimizer/stats"
)

// TestEstimate: a range from the first look to the pair cap, which a
// budget cuts down; longer iterations take longer.
func TestEstimate(t *testing.T) {
	seq := stats.Sequential{MinPairs: 5, MaxPairs: 100, Alpha: 0.05, MinSpeedup: 0.01}
	c := Cost{Target: 300 * time.Millisecond, Seq: seq, FirstRuns: 5}
	traces := []gobench.Trace{{Bench: "BenchmarkA", Wall: time.Second}, {}}
	open := c.Estimate(traces)
	low, high, ok := strings.Cut(strings.TrimPrefix(open, "; about "), ", up to ")
	if !ok || low == "" || high == "" {
		t.Fatalf("Estimate without a budget = %q, want a range", open)
	}
	c.Budget = time.Nanosecond
	if got := c.Estimate(traces); got != "; about "+low {
		t.Errorf("Estimate with a budget under the first look = %q, want the low end alone, %q", got, "; about "+low)
	}
	c.Budget = 0
	slow := []gobench.Trace{{Bench: "BenchmarkA", Wall: time.Second,
		Subs: []gobench.Count{{Bench: "BenchmarkA", SecPerOp: 2}}}, {}}
	lowSlow, _, _ := strings.Cut(strings.TrimPrefix(c.Estimate(slow), "; about "), ",")
	dLow, _ := time.ParseDuration(low)
	dSlow, _ := time.ParseDuration(lowSlow)
	if dSlow <= dLow {
		t.Errorf("a benchmark of 2 s an iteration: about %s, want more than the %s of the calibration target", lowSlow, low)
	}
	c.Scale = 3
	lowShared, _, _ := strings.Cut(strings.TrimPrefix(c.Estimate(traces), "; about "), ",")
	dShared, _ := time.ParseDuration(lowShared)
	if dShared < 2*dLow || dShared > 3*dLow {
		t.Errorf("on a CPU shared so that samples take 3× as long: about %s, want 2–3× the %s at rest (calibration is not scaled)", lowShared, low)
	}
}

// TestRuns: a bench command's cost in runs, from the first look that can
// claim to the cap, with the budget when there is one.
func TestRuns(t *testing.T) {
	seq := stats.Sequential{MinPairs: 6, MaxPairs: 30, Alpha: 0.05, MinSpeedup: 0.05}
	first := max(seq.FirstClaim(), 6)
	for _, c := range []struct {
		cost Cost
		want string
	}{
		{Cost{Seq: seq}, fmt.Sprintf("; %d to 30 pairs of one run a side", first)},
		{Cost{Seq: seq, Budget: 5 * time.Minute}, fmt.Sprintf("; %d to 30 pairs of one run a side, at most 5m0s each (--bench-budget)", first)},
		{Cost{Seq: stats.Sequential{MinPairs: 8, MaxPairs: 8, Alpha: 0.05, MinSpeedup: 0.05}}, "; 8 pairs of one run a side"},
	} {
		if got := c.cost.Runs(); got != c.want {
			t.Errorf("Runs() = %q, want %q", got, c.want)
		}
	}
}
