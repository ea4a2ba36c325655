package measure

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/stats"
)

// fakeSampler returns samples of a fixed distribution: each benchmark's time
// per op is its side's mean times a normal error of 2%. It takes no time and
// runs nothing.
type fakeSampler struct {
	rng     *rand.Rand
	benches []string
	mean    [2]float64 // seconds per op at base and at the candidate
	samples int
}

func newFake(seed uint64, base, cand float64) *fakeSampler {
	return &fakeSampler{rng: rand.New(rand.NewPCG(seed, 1)), benches: []string{"BenchmarkA", "BenchmarkB"}, mean: [2]float64{base, cand}}
}

func (f *fakeSampler) Sample(_ context.Context, s Side) ([]Metric, error) {
	f.samples++
	var out []Metric
	for _, b := range f.benches {
		v := f.mean[s] * (1 + 0.02*f.rng.NormFloat64())
		out = append(out, Metric{Bench: b, Unit: "sec/op", Value: v, Iters: 1000},
			Metric{Bench: b, Unit: "allocs/op", Value: 3, Iters: 1000})
	}
	return out, nil
}

func rounds(seed uint64) *Rounds {
	return &Rounds{
		Seq:    stats.Sequential{MinPairs: 6, MaxPairs: 30, Alpha: 0.05, MinSpeedup: 0.05},
		Seed:   seed,
		Start:  time.Now(),
		Budget: time.Hour,
	}
}

// TestRounds_FakeSampler: a candidate twice as fast is faster, settled
// before the cap; base against base is never faster, over many seeds.
func TestRounds_FakeSampler(t *testing.T) {
	ctx := context.Background()
	l := rounds(1)
	var sampled, paired int
	l.Sampled = func(Side, int, int, []Metric) { sampled++ }
	l.Paired = func(Pair, *Series) { paired++ }
	fast := newFake(1, 2e-6, 1e-6)
	out, err := l.Run(ctx, fast)
	if err != nil {
		t.Fatal(err)
	}
	dec := out.Decision
	if dec.Verdict != stats.Faster || !dec.Settled || dec.Aggregate.Speedup < 1.8 || dec.Aggregate.Speedup > 2.2 {
		t.Errorf("2x faster: %s (settled %v) at %.2fx %v; want faster, settled, about 2x", dec.Verdict, dec.Settled,
			dec.Aggregate.Speedup, [2]float64{dec.Aggregate.Low, dec.Aggregate.High})
	}
	n := out.Series.Rounds()
	if n >= 30 || sampled != 2*n || paired != n || fast.samples != 2*n {
		t.Errorf("%d pairs, %d samples seen by the hook, %d pairs, %d taken; want fewer than 30 pairs, every one seen",
			n, sampled, paired, fast.samples)
	}
	if ex := out.Series.Beside(0.05); len(ex) != 2 || ex[0].Increased || ex[0].Decreased || !ex[0].Beside {
		t.Errorf("metrics beside time %+v; want allocs/op of both benchmarks, unchanged", ex)
	}
	for seed := range uint64(20) {
		out, err := rounds(seed).Run(ctx, newFake(seed, 2e-6, 2e-6))
		if err != nil {
			t.Fatal(err)
		}
		if v := out.Decision.Verdict; v != stats.NotFaster {
			t.Errorf("A/A, seed %d: %s at %.3fx after %d pairs; want not-faster", seed, v, out.Decision.Aggregate.Speedup, out.Series.Rounds())
		}
	}
}

// slowAfter fails the candidate's sample of round n with ErrTooSlow.
type slowAfter struct {
	*fakeSampler
	n int
}

func (s *slowAfter) Sample(ctx context.Context, sd Side) ([]Metric, error) {
	if sd == Cand && s.samples >= 2*s.n {
		return nil, ErrTooSlow
	}
	return s.fakeSampler.Sample(ctx, sd)
}

// TestRounds_StopsAt: a candidate sample that runs too long ends the loop
// with ErrTooSlow and the pairs so far. Kept pairs count toward the cap. A
// past deadline stops at the first look.
func TestRounds_StopsAt(t *testing.T) {
	ctx := context.Background()
	out, err := rounds(2).Run(ctx, &slowAfter{newFake(2, 1e-6, 1e-6), 3})
	if !errors.Is(err, ErrTooSlow) || out.Series.Rounds() != 3 {
		t.Errorf("too slow: %v after %d pairs; want ErrTooSlow after 3", err, out.Series.Rounds())
	}

	l := rounds(3)
	l.Seq.MinSpeedup = 0.5 // a candidate 1% faster neither wins nor is ruled out early
	kept := newFake(4, 1e-6, 1e-6)
	for range 28 {
		b, _ := kept.Sample(ctx, Base)
		c, _ := kept.Sample(ctx, Cand)
		l.Kept = append(l.Kept, [2][]Metric{b, c})
	}
	fresh := newFake(3, 1e-6, 0.99e-6)
	out, err = l.Run(ctx, fresh)
	if err != nil || out.Series.Rounds() > 30 || fresh.samples > 4 {
		t.Errorf("28 kept pairs: %v, %d pairs, %d new samples; want at most 30 pairs, at most 2 new", err, out.Series.Rounds(), fresh.samples)
	}

	// With no threshold, base against base stays open past the first look.
	l = rounds(5)
	l.Seq.MinSpeedup = 0
	open, _ := l.Run(ctx, newFake(5, 1e-6, 1e-6))
	l.Deadline = time.Now().Add(-time.Second)
	out, err = l.Run(ctx, newFake(5, 1e-6, 1e-6))
	if err != nil || out.Series.Rounds() != l.Seq.MinPairs || open.Series.Rounds() <= l.Seq.MinPairs {
		t.Errorf("past the deadline: %v, %d pairs (%d without); want %d, the first look", err,
			out.Series.Rounds(), open.Series.Rounds(), l.Seq.MinPairs)
	}
}

// clockedSampler is a fakeSampler whose samples take time on a fake clock:
// start-up plus 1000 iterations of each benchmark at the side's mean.
type clockedSampler struct {
	*fakeSampler
	now     *time.Time
	startup time.Duration
}

func (c *clockedSampler) Sample(ctx context.Context, s Side) ([]Metric, error) {
	*c.now = c.now.Add(c.startup + time.Duration(float64(len(c.benches))*1000*c.mean[s]*float64(time.Second)))
	return c.fakeSampler.Sample(ctx, s)
}

// TestRounds_FirstRunsInBudget: the one-iteration runs the caller makes
// after the loop (the hack check) are counted in the budget and the
// deadline. Each is one process start-up and one iteration per benchmark
// and side, estimated from the pairs. The loop stops that much sooner, and
// its last pair says what they should take. The clock is the test's.
func TestRounds_FirstRunsInBudget(t *testing.T) {
	ctx := context.Background()
	// A sample: 50 ms of start-up, then 2 benchmarks of 1000 iterations at
	// 50 µs, so 150 ms; a pair 300 ms. A run for one iteration: 50.1 ms
	// a side; 5 of them on both sides, 501 ms.
	run := func(firstRuns int, deadline bool) (int, time.Duration, time.Duration) {
		now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
		l := rounds(7)
		l.Seq.MinSpeedup = 0 // base against base stays open: only the budget stops it
		l.Start, l.Budget, l.FirstRuns = now, 3*time.Second, firstRuns
		if deadline {
			l.Budget, l.Deadline = time.Hour, now.Add(3*time.Second)
		}
		l.Now = func() time.Time { return now }
		var after time.Duration
		l.Paired = func(p Pair, _ *Series) { after = p.After }
		smp := &clockedSampler{fakeSampler: newFake(7, 50e-6, 50e-6), now: &now, startup: 50 * time.Millisecond}
		out, err := l.Run(ctx, smp)
		if err != nil {
			t.Fatal(err)
		}
		return out.Series.Rounds(), now.Sub(l.Start), after
	}
	const wantAfter = 5 * 2 * (50*time.Millisecond + 2*50*time.Microsecond)
	for _, deadline := range []bool{false, true} {
		pairs, took, after := run(0, deadline)
		if after != 0 || pairs != 11 || took != 3300*time.Millisecond {
			t.Errorf("deadline %v, no first runs: %d pairs in %s, %s after; want 11 pairs, the first past 3s, nothing after", deadline, pairs, took, after)
		}
		pairs, took, after = run(5, deadline)
		if d := after - wantAfter; d < -wantAfter/20 || d > wantAfter/20 { // the 2% noise of the times per op
			t.Errorf("deadline %v: the last pair expects %s of first runs, want %s", deadline, after, wantAfter)
		}
		if pairs != 9 || took+after <= 3*time.Second || took+after-300*time.Millisecond > 3*time.Second {
			t.Errorf("deadline %v, 5 first runs: %d pairs in %s, %s after; want 9 pairs, the first whose time and the runs' pass 3s", deadline, pairs, took, after)
		}
	}
}
