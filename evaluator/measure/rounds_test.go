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
