package main

import (
	"testing"

	"github.com/optimizer-dev/optimizer/evaluator/stats"
)

// TestQuieter: a 1.2× change measured so noisily that it ran to the cap
// settles, at a tenth of its spread, at the first look the judge would
// have settled it (not before the first claim), keeping its change; at
// its own spread it is left as it was, and the stored rounds are not
// changed either way.
func TestQuieter(t *testing.T) {
	cfg := jobConfig{MinPairs: 6, MaxPairs: 30, MinSpeedup: 5}
	noisy := benchRun{name: "c", names: []string{"B"}}
	for i := range 30 {
		jitter := []float64{0.5, 1.5, 1, 2, 0.7}[i%5] // base and candidate apart by up to 4×
		noisy.rounds = append(noisy.rounds, []stats.Pair{{Base: 1.2 * jitter, Cand: 1 / jitter}})
	}
	seq := judgeOf(cfg)
	if seq.Look(noisy.names, noisy.rounds).Settled {
		t.Fatal("the noisy rounds settle at the cap: not a run to the cap")
	}
	if got := quieter(cfg, []benchRun{noisy}, 1); len(got[0].rounds) != 30 {
		t.Errorf("at its own spread, %d pairs, want 30", len(got[0].rounds))
	}
	got := quieter(cfg, []benchRun{noisy}, 0.1)[0]
	n := len(got.rounds)
	if n >= 30 || n < seq.FirstClaim() {
		t.Fatalf("at a tenth of its spread, %d pairs, want from the first claim (%d) to below the cap", n, seq.FirstClaim())
	}
	if !seq.Look(got.names, got.rounds).Settled || seq.Look(got.names, got.rounds[:n-1]).Settled {
		t.Errorf("cut at %d pairs, not at the first look that settles", n)
	}
	if d := seq.Look(got.names, got.rounds); d.Verdict != stats.Faster {
		t.Errorf("the quieter rounds say %v, want faster: the change is kept", d.Verdict)
	}
	if noisy.rounds[0][0] != (stats.Pair{Base: 0.6, Cand: 2}) {
		t.Errorf("the stored rounds were changed: %+v", noisy.rounds[0][0])
	}
}
