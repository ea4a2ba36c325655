package evaluator

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
)

// TestRun_History: a job's start event carries, as its History, the pairs
// the benchmarks of the latest earlier jobs measured, by candidate, latest
// job first. Those are jobs on the repo with the same benchmark settings; a
// job with other settings has none. Real git, store and bench command.
func TestRun_History(t *testing.T) {
	h := newHarness(t, shellRepo)
	ctx := context.Background()
	opts := Options{
		Candidates: []candidate.Candidate{filesCand("fast", map[string]string{"speed": "0.016\n"})},
		Test:       "sh test.sh", Bench: "sh bench.sh", Timeout: 5 * time.Second, MinPairs: 4, MaxPairs: 6, NoCache: true,
	}
	// run runs a job with opts and returns its start event's History and
	// the pairs each candidate measured.
	run := func(opts Options) (history, pairs []int) {
		t.Helper()
		events := make(chan Event)
		got := make(chan []int, 1)
		go func() {
			var h []int
			for ev := range events {
				if ev.Kind == EventJobStart {
					for _, b := range ev.History {
						if b.Candidate != "fast" {
							t.Errorf("history of %q, want only fast's", b.Candidate)
						}
						h = append(h, b.Pairs)
					}
				}
			}
			got <- h
		}()
		opts.Events = events
		rep, err := h.run(t, ctx, 1, opts)
		close(events)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range rep.Candidates {
			if c.Pairs == 0 {
				t.Fatalf("%s measured no pairs: %+v", c.Name, c)
			}
			pairs = append(pairs, c.Pairs)
		}
		return <-got, pairs
	}
	h1, p1 := run(opts)
	if h1 != nil {
		t.Errorf("first job's history %v, want none", h1)
	}
	h2, p2 := run(opts)
	if !slices.Equal(h2, p1) {
		t.Errorf("second job's history %v, want the first's pairs %v", h2, p1)
	}
	other := opts
	other.MaxPairs = 5
	if h3, _ := run(other); h3 != nil {
		t.Errorf("with another --max-pairs: history %v, want none", h3)
	}
	if h4, _ := run(opts); !slices.Equal(h4, append(p2, p1...)) {
		t.Errorf("fourth job's history %v, want the second's pairs and the first's, %v then %v", h4, p2, p1)
	}
}
