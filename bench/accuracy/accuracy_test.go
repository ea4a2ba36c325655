package main

import (
	"bytes"
	"io/fs"
	"slices"
	"testing"

	"github.com/optimizer-dev/optimizer/stats"
	"github.com/optimizer-dev/optimizer/store"
	"github.com/optimizer-dev/optimizer/testdata"
)

func TestPlan(t *testing.T) {
	jobs := plan(45, 5, []string{kindX125, kindX2}, 20, 1)
	if len(jobs) != 3 {
		t.Fatalf("%d jobs, want 3", len(jobs))
	}
	count := map[string]int{}
	for _, job := range jobs {
		if len(job) > 20 {
			t.Errorf("job of %d trials, want at most 20", len(job))
		}
		var names []string
		for i, tr := range job {
			count[tr.Kind]++
			if tr.Seq != i+1 {
				t.Errorf("trial %d has Seq %d", i, tr.Seq)
			}
			names = append(names, tr.Name())
		}
		if !slices.IsSorted(names) {
			t.Errorf("names do not sort in measuring order: %v", names)
		}
	}
	if count[kindAA] != 45 || count[kindX125] != 5 || count[kindX2] != 5 {
		t.Errorf("kinds %v, want 45 aa, 5 x125, 5 x2", count)
	}
	if again := plan(45, 5, []string{kindX125, kindX2}, 20, 1); !slices.EqualFunc(jobs, again, slices.Equal) {
		t.Error("the same seed gave another plan")
	}
}

func TestSource(t *testing.T) {
	base, err := fs.ReadFile(testdata.Fixture, changed)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, k := range kinds {
		for seq := 1; seq <= 2; seq++ {
			tr := plannedTrial{Job: 1, Seq: seq, Kind: k.Name}
			src, err := source(tr)
			if err != nil {
				t.Fatal(err)
			}
			if seen[string(src)] {
				t.Errorf("%s: the same source as another trial: it would be a duplicate", tr.Name())
			}
			seen[string(src)] = true
			// A/A keeps base's code byte for byte, and only adds a comment after it.
			if got := bytes.HasPrefix(src, base); got != (k.Name == kindAA) {
				t.Errorf("%s: starts with base's file: %v", tr.Name(), got)
			}
			if m := trialName.FindStringSubmatch(tr.Name()); m == nil || m[2] != k.Name {
				t.Errorf("trial name %q does not parse back to kind %s", tr.Name(), k.Name)
			}
		}
	}
}

func TestToSamples(t *testing.T) {
	rows := []store.BenchSample{
		{Benchmark: "B", Unit: "sec/op", Side: "base", Round: 0, Value: 2},
		{Benchmark: "B", Unit: "sec/op", Side: "candidate", Round: 0, Value: 1},
		{Benchmark: "B", Unit: "allocs/op", Side: "candidate", Round: 0, Value: 7},
		{Benchmark: "B", Unit: "sec/op", Side: "candidate", Round: 1, Value: 1}, // round 1 lacks base
		{Benchmark: "B", Unit: "ns/op", Side: "candidate", Round: 2, Value: 1e9},
		{Benchmark: "B", Unit: "ns/op", Side: "base", Round: 2, Value: 3e9},
	}
	s := toSamples(rows)
	if s.rounds() != 2 || !slices.Equal(s.base[0], []float64{2, 3}) || !slices.Equal(s.cand[0], []float64{1, 1}) {
		t.Errorf("samples %+v, want rounds 0 and 2 in seconds", s)
	}
}

func TestCodeflash(t *testing.T) {
	one := func(base, cand []float64) samples {
		return samples{benches: []string{"B"}, base: [][]float64{base}, cand: [][]float64{cand}}
	}
	// Identical code, but the machine was quicker early on. The first
	// half's base minimum (100) against the second half's candidate minimum
	// (104) is no gain. The job's baseline, measured on a slow minute (110),
	// makes the candidate look 10% faster.
	s := one([]float64{100, 101, 104, 105}, []float64{101, 100, 104, 106})
	jobBase := one([]float64{110, 112}, []float64{110, 112})
	c := codeflash(s, jobBase)
	if c.First || !c.Job || c.All {
		t.Errorf("got %+v, want only the job baseline reading to accept", c)
	}
	// A lucky candidate loop is accepted by every reading.
	s = one([]float64{100, 100, 100, 100}, []float64{100, 100, 90, 90})
	if c := codeflash(s, s); !c.First || !c.Job || !c.All {
		t.Errorf("got %+v, want every reading to accept", c)
	}
	// Runtimes under 10µs need three times the gain.
	if ok, _ := codeflashAccept(5e-6, 4.5e-6); ok {
		t.Error("an 11% gain on a 5µs runtime was accepted, want the 15% floor")
	}
	if ok, _ := codeflashAccept(5e-3, 4.5e-3); !ok {
		t.Error("an 11% gain on a 5ms runtime was refused, want the 5% floor")
	}
}

func TestReplayOne(t *testing.T) {
	// A 2× faster candidate measured ABBA: base, cand | cand, base | ...
	var series []float64
	for r := range 30 {
		if r%2 == 0 {
			series = append(series, 100+float64(r), 50+float64(r))
		} else {
			series = append(series, 50+float64(r), 100+float64(r))
		}
	}
	abba := func(r int) bool { return r%2 == 0 }
	if v := replayOne(series, abba); v != stats.Faster {
		t.Errorf("labelled ABBA: %s, want faster", v)
	}
	// Labelled base-first throughout, every other pair turns 2× slower.
	if v := replayOne(series, func(int) bool { return true }); v == stats.Faster || v == stats.Slower {
		t.Errorf("labelled AB AB: %s, want no claim", v)
	}
	if got := seriesOf([]store.BenchSample{
		{Unit: "sec/op", Round: 0, Value: 1}, {Unit: "B/op", Round: 0, Value: 9}, {Unit: "sec/op", Round: 0, Value: 2},
		{Unit: "sec/op", Round: 1, Value: 3}, {Unit: "sec/op", Round: 1, Value: 4},
	}); !slices.Equal(got, []float64{1, 2, 3, 4}) {
		t.Errorf("seriesOf = %v, want the timed samples in order", got)
	}
}
