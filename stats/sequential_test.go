package stats

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestDecide(t *testing.T) {
	const m = 0.05
	est := func(lo, hi float64) Estimate { return Estimate{Speedup: math.Sqrt(lo * hi), Low: lo, High: hi} }
	for _, tt := range []struct {
		name string
		agg  Estimate
		per  []Estimate
		want Outcome
	}{
		{"Faster", est(1.06, 1.3), []Estimate{est(1.06, 1.3)}, Faster},
		{"FasterAtThreshold", est(1.05, 1.3), nil, Faster},
		{"BelowThreshold", est(1.049, 1.3), nil, NotFaster},
		{"Straddles", est(0.97, 1.1), nil, NotFaster},
		{"Slower", est(0.8, 0.99), nil, Slower},
		{"UpperAtOne", est(0.8, 1), nil, NotFaster},
		// Faster overall, one benchmark significantly slower by more than
		// the threshold: its upper bound is below 1/1.05 = 0.952.
		{"Mixed", est(1.2, 1.5), []Estimate{est(2, 2.5), est(0.8, 0.95)}, Mixed},
		// Slower, but not by more than the threshold: still faster.
		{"SlowerWithinThreshold", est(1.2, 1.5), []Estimate{est(2, 2.5), est(0.9, 0.96)}, Faster},
		// The benchmarks disagree in direction: mixed whatever the
		// aggregate, which is unchanged here.
		{"MixedFlatAggregate", est(0.9, 1.1), []Estimate{est(1.8, 2.2), est(0.45, 0.55)}, Mixed},
		{"MixedSlowerAggregate", est(0.7, 0.9), []Estimate{est(1.1, 1.2), est(0.3, 0.5)}, Mixed},
		// Faster on one benchmark, unchanged on the other: the verdict
		// stays not-faster (Look qualifies it as a subset).
		{"FasterOnOne", est(0.99, 1.2), []Estimate{est(1.3, 1.5), est(0.95, 1.05)}, NotFaster},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Decide(tt.agg, tt.per, m); got != tt.want {
				t.Errorf("Decide = %s, want %s", got, tt.want)
			}
		})
	}
}

// roundsOf builds rounds from per-benchmark log-ratios: d[b][r].
func roundsOf(d ...[]float64) [][]Pair {
	rounds := make([][]Pair, len(d[0]))
	for r := range rounds {
		rounds[r] = make([]Pair, len(d))
		for b := range d {
			rounds[r][b] = pairsOf(d[b][r])[0]
		}
	}
	return rounds
}

// jitter returns n log-ratios around centre, spread by ±spread in a fixed
// zig-zag (no randomness: the tests below are about the rules).
func jitter(n int, centre, spread float64) []float64 {
	zig := []float64{0.3, -0.8, 1, -0.1, 0.6, -0.5, 0.9, -1, 0.2, -0.4}
	d := make([]float64, n)
	for i := range d {
		d[i] = centre + spread*zig[i%len(zig)]*(1+0.01*float64(i))
	}
	return d
}

func TestSequential_LookTails(t *testing.T) {
	s := Sequential{}
	// 6 and 7 pairs cannot reach what the plan allows them on either side.
	for _, n := range []int{6, 7} {
		below, above := s.LookTails(n)
		if attainable(n, below) != 0 || attainable(n, above) != 0 {
			t.Errorf("LookTails(%d) = %v, %v is attainable; the plan should not allow it yet", n, below, above)
		}
	}
	// At 8 pairs: 1/128 below (one of the 8 pairs may disagree with a
	// "faster" claim), 1/256 above (all 8 must agree on "slower").
	if below, above := s.LookTails(8); below != 1./128 || above != 1./256 {
		t.Errorf("LookTails(8) = %v, %v; want 1/128, 1/256", below, above)
	}
	if a := lookAlpha(s, 8); a != 3./256 {
		t.Errorf("lookAlpha(8) = %v, want 3/256", a)
	}
	// The levels spent over the whole sequence stay within each side's
	// budget, and the last look gets most of it. The exact levels are
	// discrete, so a little is left over.
	var total [2]float64
	for n := DefaultMinPairs; n <= DefaultMaxPairs; n++ {
		below, above := s.LookTails(n)
		total[0] += attainable(n, below)
		total[1] += attainable(n, above)
	}
	for i, budget := range [2]float64{DefaultAlpha * 2 / 3, DefaultAlpha / 3} {
		if total[i] > budget || total[i] < 0.95*budget {
			t.Errorf("side %d spends %v in all, want just under %v", i, total[i], budget)
		}
	}
	if last := lookAlpha(s, DefaultMaxPairs); last < 0.5*DefaultAlpha {
		t.Errorf("last look spends %v, want most of %v", last, DefaultAlpha)
	}
	// Out of range: the first and last looks' levels.
	if lookAlpha(s, 3) != lookAlpha(s, 6) || lookAlpha(s, 50) != lookAlpha(s, 30) {
		t.Errorf("lookAlpha outside MinPairs..MaxPairs is not the nearest look's")
	}
	// A single look spends everything: at 10 pairs, the largest exact
	// errors within 1/30 and 1/60 are P(T+<=9) = 33/1024 and
	// P(T+<=6) = 14/1024.
	one := Sequential{MinPairs: 10, MaxPairs: 10}
	if below, above := one.LookTails(10); below != 33./1024 || above != 14./1024 {
		t.Errorf("single look at 10 pairs: %v, %v; want 33/1024, 14/1024", below, above)
	}
}

func TestSequential_Look(t *testing.T) {
	seq := Sequential{MinSpeedup: 0.05}
	for _, tt := range []struct {
		name    string
		d       [][]float64
		verdict Outcome
		settled bool
		reason  string
	}{
		{"FasterAt8", [][]float64{jitter(8, -0.69, 0.05), jitter(8, -0.6, 0.05)}, Faster, true, "faster"},
		// A 2× speedup with one contrary pair still settles at 8.
		{"FasterWithOutlier", [][]float64{append(jitter(7, -0.69, 0.05), 0.4)}, Faster, true, "faster"},
		// 7 pairs are too few for any claim the plan allows.
		{"TooFewAt7", [][]float64{jitter(7, -0.69, 0.05)}, NotFaster, false, "too few"},
		{"SlowerAt8", [][]float64{jitter(8, 0.69, 0.05)}, Slower, true, "slower"},
		// Identical code: faster is out of reach, so stop.
		{"Futile", [][]float64{jitter(8, 0, 0.001), jitter(8, 0, 0.002)}, NotFaster, true, "not faster"},
		// Noisy and in between: keep going.
		{"Undecided", [][]float64{jitter(8, -0.05, 0.3)}, NotFaster, false, "straddles"},
		// Benchmark 2 is 22% slower, the aggregate 1.6× faster. Each
		// benchmark's claim is corrected for there being two, which 8
		// pairs cannot reach yet; 11 can.
		{"Mixed", [][]float64{jitter(11, -1.2, 0.02), jitter(11, 0.2, 0.02)}, Mixed, true, "mixed"},
		{"MixedNotYet", [][]float64{jitter(8, -1.2, 0.02), jitter(8, 0.2, 0.02)}, Faster, false, "may be a regression"},
		// The aggregate is unchanged (2× faster, 2× slower), but the
		// benchmarks disagree in direction: mixed whatever the aggregate.
		{"MixedFlatAggregate", [][]float64{jitter(11, -0.69, 0.02), jitter(11, 0.69, 0.02)}, Mixed, true, "mixed"},
		// 1.3× faster on 2 of 13, unchanged on the rest: not faster
		// overall (1.04×), but faster on a subset, and settled.
		{"Subset", subsetOf13(13, 0.005), NotFaster, true, "faster on 2 of 13 benchmarks, none slower"},
		// The same, noisier: faster overall is still in reach, so go on.
		{"SubsetMaybeOverall", subsetOf13(13, 0.03), NotFaster, false, "and perhaps overall"},
		// Benchmark 2 looks 7% slower, but not yet significantly: faster
		// overall, but the verdict might still turn mixed.
		{"MaybeMixed", [][]float64{jitter(8, -1.2, 0.02), jitter(8, 0.07, 0.3)}, Faster, false, "may be a regression"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			names := make([]string, len(tt.d))
			for b := range names {
				names[b] = string(rune('A' + b))
			}
			dec := seq.Look(names, roundsOf(tt.d...))
			if dec.Err != nil {
				t.Fatal(dec.Err)
			}
			if dec.Verdict != tt.verdict || dec.Settled != tt.settled || !strings.Contains(dec.Reason, tt.reason) {
				t.Errorf("Look = %s settled %v (%q), want %s settled %v (%q)\naggregate %+v\nper benchmark %+v",
					dec.Verdict, dec.Settled, dec.Reason, tt.verdict, tt.settled, tt.reason, dec.Aggregate, dec.PerBench)
			}
			if dec.Pairs != len(tt.d[0]) || len(dec.PerBench) != len(tt.d) || dec.PerBench[0].Name != "A" {
				t.Errorf("Look: %d pairs, per benchmark %+v", dec.Pairs, dec.PerBench)
			}
		})
	}
}

// subsetOf13 is n rounds of 13 benchmarks: the first two 1.3× faster, the
// rest unchanged, spread by spread.
func subsetOf13(n int, spread float64) [][]float64 {
	d := make([][]float64, 13)
	for b := range d {
		centre := 0.0
		if b < 2 {
			centre = -math.Log(1.3)
		}
		d[b] = jitter(n, centre, spread)
	}
	return d
}

// TestSequential_Look_SlowerBeforeItsClaim is a head that is slower overall
// at 8 pairs. There no single benchmark's bound is attained yet at the
// level corrected for three benchmarks. The benchmark behind it, whose
// interval lies wholly below 1, is labelled slower, as its interval says.
// The look does not settle until that benchmark's claim is made (10 pairs),
// so that the regression is named (SlowerOn) and gates.
func TestSequential_Look_SlowerBeforeItsClaim(t *testing.T) {
	seq := Sequential{MinSpeedup: 0.05}
	names := []string{"A", "B", "C"}
	rounds := roundsOf(jitter(10, 0.6, 0.1), jitter(10, 0, 0.01), jitter(10, 0, 0.01))
	dec := seq.Look(names, rounds[:8])
	if dec.Verdict != Slower || dec.Settled || !strings.Contains(dec.Reason, "A looks slower") {
		t.Fatalf("Look at 8 pairs = %s settled %v (%s), want slower, not settled while A's claim is pending", dec.Verdict, dec.Settled, dec.Reason)
	}
	a := dec.PerBench[0]
	if !(a.High < 1) {
		t.Fatalf("benchmark A's interval [%v, %v] does not lie below 1", a.Low, a.High)
	}
	if a.Verdict != Slower {
		t.Errorf("benchmark A [%.3f, %.3f] is labelled %s, want slower", a.Low, a.High, a.Verdict)
	}
	if len(dec.SlowerOn) != 0 {
		t.Errorf("SlowerOn = %v: no benchmark's bound is attained at 8 pairs of 3", dec.SlowerOn)
	}
	dec = seq.Look(names, rounds)
	if dec.Verdict != Slower || !dec.Settled || !slices.Equal(dec.SlowerOn, []int{0}) || dec.PerBench[0].Verdict != Slower {
		t.Errorf("Look at 10 pairs = %s settled %v (%s), slower on %v; want slower, settled, slower on [0]", dec.Verdict, dec.Settled, dec.Reason, dec.SlowerOn)
	}
}

func TestSequential_Look_PerBench(t *testing.T) {
	dec := Sequential{MinSpeedup: 0.05}.Look(nil, roundsOf(jitter(11, -0.69, 0.05), jitter(11, 0.3, 0.05), jitter(11, 0, 0.05)))
	want := []Outcome{Faster, Slower, NotFaster}
	for b, e := range dec.PerBench {
		if e.Verdict != want[b] {
			t.Errorf("benchmark %d verdict %s, want %s (%+v)", b, e.Verdict, want[b], e)
		}
		if e.Name != "" || e.Pairs != 11 || math.Abs(e.Level-(1-dec.BenchAlpha)) > 1e-12 {
			t.Errorf("benchmark %d: %+v at benchmark alpha %v", b, e, dec.BenchAlpha)
		}
	}
	if !slices.Equal(dec.FasterOn, []int{0}) || !slices.Equal(dec.SlowerOn, []int{1}) || dec.Verdict != Mixed {
		t.Errorf("faster on %v, slower on %v, verdict %s; want [0], [1], mixed", dec.FasterOn, dec.SlowerOn, dec.Verdict)
	}
}

// TestSequential_BenchTails checks the correction for the number of
// benchmarks. One benchmark is the look itself. k benchmarks split each
// side's budget k ways, and what they spend over all looks stays within it.
func TestSequential_BenchTails(t *testing.T) {
	s := Sequential{}
	for n := DefaultMinPairs; n <= DefaultMaxPairs; n++ {
		b1, a1 := s.BenchTails(n, 1)
		lb, la := s.LookTails(n)
		if b1 != lb || a1 != la {
			t.Fatalf("BenchTails(%d, 1) = %v, %v; want LookTails %v, %v", n, b1, a1, lb, la)
		}
	}
	for _, k := range []int{2, 13} {
		var total [2]float64
		for n := DefaultMinPairs; n <= DefaultMaxPairs; n++ {
			below, above := s.BenchTails(n, k)
			total[0] += attainable(n, below)
			total[1] += attainable(n, above)
		}
		for i, budget := range [2]float64{DefaultAlpha * 2 / 3 / float64(k), DefaultAlpha / 3 / float64(k)} {
			if total[i] > budget || total[i] < 0.9*budget {
				t.Errorf("%d benchmarks: side %d spends %v in all, want just under %v", k, i, total[i], budget)
			}
		}
	}
}

func TestSequential_Look_Errors(t *testing.T) {
	seq := Sequential{MinSpeedup: 0.05}
	good := roundsOf(jitter(8, -0.2, 0.05), jitter(8, -0.2, 0.05))
	nan := roundsOf(jitter(8, -0.2, 0.05), jitter(8, -0.2, 0.05))
	nan[3][1].Cand = math.NaN()
	zero := roundsOf(jitter(8, -0.2, 0.05), jitter(8, -0.2, 0.05))
	zero[0][0].Base = 0
	ragged := roundsOf(jitter(8, -0.2, 0.05), jitter(8, -0.2, 0.05))
	ragged[5] = ragged[5][:1]
	for _, tt := range []struct {
		name   string
		seq    Sequential
		names  []string
		rounds [][]Pair
		err    error
	}{
		{"NaN", seq, []string{"A", "B"}, nan, ErrInvalid},
		{"Zero", seq, []string{"A", "B"}, zero, ErrInvalid},
		{"Ragged", seq, []string{"A", "B"}, ragged, ErrRagged},
		{"Names", seq, []string{"A"}, good, ErrNames},
		{"Empty", seq, []string{"A", "B"}, nil, ErrEmpty},
		{"Alpha", Sequential{Alpha: 2}, []string{"A", "B"}, good, ErrAlpha},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dec := tt.seq.Look(tt.names, tt.rounds)
			if !errors.Is(dec.Err, tt.err) {
				t.Errorf("Look error %v, want %v", dec.Err, tt.err)
			}
			if dec.Verdict != NotFaster || dec.Settled {
				t.Errorf("Look with an error: %s settled %v, want not-faster, not settled", dec.Verdict, dec.Settled)
			}
			if len(dec.PerBench) != len(tt.names) || dec.PerBench[0].Name != "A" {
				t.Errorf("Look with an error: PerBench %+v, want one named estimate per name", dec.PerBench)
			}
		})
	}
}

func TestSequential_Look_BelowMinPairs(t *testing.T) {
	// Asked early (the time budget ran out), Look estimates but never
	// settles, even on an overwhelming change.
	seq := Sequential{MinPairs: 10, MinSpeedup: 0.05}
	dec := seq.Look(nil, roundsOf(jitter(9, -2, 0.01)))
	if dec.Settled || dec.Pairs != 9 || dec.Aggregate.Speedup < 7 {
		t.Errorf("Look below MinPairs: settled %v, %d pairs, %+v", dec.Settled, dec.Pairs, dec.Aggregate)
	}
}

func TestSequential_Look_AtMaxPairs(t *testing.T) {
	// At the last look, faster stands even with a doubtful benchmark.
	seq := Sequential{MinPairs: 6, MaxPairs: 8, MinSpeedup: 0.05}
	dec := seq.Look(nil, roundsOf(jitter(8, -1.2, 0.02), jitter(8, 0.07, 0.3)))
	if dec.Verdict != Faster || !dec.Settled {
		t.Errorf("Look at MaxPairs = %s settled %v (%s), want faster, settled", dec.Verdict, dec.Settled, dec.Reason)
	}
}

func TestSequential_Defaults(t *testing.T) {
	s := Sequential{}.withDefaults()
	if s.MinPairs != 6 || s.MaxPairs != 30 || s.Alpha != 0.05 || s.MinSpeedup != 0 {
		t.Errorf("defaults %+v", s)
	}
	if s := (Sequential{MinPairs: 12, MaxPairs: 8}).withDefaults(); s.MaxPairs != 12 {
		t.Errorf("MaxPairs below MinPairs: %+v, want MaxPairs raised to MinPairs", s)
	}
}

// TestSequential_FirstClaim: no look before FirstClaim can settle even an
// overwhelming change (so a budget that stops there wastes the pairs), and
// the look at FirstClaim does.
func TestSequential_FirstClaim(t *testing.T) {
	for _, tt := range []struct {
		name string
		seq  Sequential
		want int
	}{
		// 6 and 7 pairs cannot attain the first looks' levels.
		{"Defaults", Sequential{MinSpeedup: 0.05}, 8},
		{"LateFirstLook", Sequential{MinPairs: 10, MinSpeedup: 0.05}, 10},
		{"LargeAlpha", Sequential{Alpha: 0.5, MinSpeedup: 0.05}, 6},
	} {
		t.Run(tt.name, func(t *testing.T) {
			first := tt.seq.FirstClaim()
			if first != tt.want {
				t.Errorf("FirstClaim = %d, want %d", first, tt.want)
			}
			for n := tt.seq.withDefaults().MinPairs; n <= first; n++ {
				dec := tt.seq.Look(nil, roundsOf(jitter(n, -2, 0.01)))
				if got := dec.Settled && dec.Verdict == Faster; got != (n == first) {
					t.Errorf("Look at %d pairs of a 7x speedup: %s, settled %v (%s); FirstClaim %d", n, dec.Verdict, dec.Settled, dec.Reason, first)
				}
			}
		})
	}
}

// lookAlpha is the two-sided level the look at n rounds spends: the sum of
// LookTails.
func lookAlpha(s Sequential, n int) float64 {
	below, above := s.LookTails(n)
	return below + above
}

// TestSequential_Look_TwoOfEight is issue 36's job: 8 benchmarks, 2 of them
// 3× faster, the rest unchanged. At 8 pairs no benchmark can be claimed at
// the level corrected for 8. The exact test's smallest one-sided error
// there, 1/256, is above the budget the plan gives each benchmark. That
// budget is a third of (2/3)(0.05)/8 by the third look. So the look that
// finds the aggregate faster does not settle while the two are pending. The
// look at 10 pairs (1/1024) claims both, by name.
func TestSequential_Look_TwoOfEight(t *testing.T) {
	seq := Sequential{MinSpeedup: 0.05}
	below, _ := seq.BenchTails(8, 8)
	if attainable(8, below) != 0 || below >= 1./256 {
		t.Fatalf("BenchTails(8, 8) below = %v, attainable %v: want below 1/256, not attainable", below, attainable(8, below))
	}
	if below, _ := seq.BenchTails(10, 8); attainable(10, below) != 1./1024 {
		t.Fatalf("BenchTails(10, 8) below = %v: want 1/1024 attainable", below)
	}
	names := []string{"A", "B", "C", "D", "E", "F", "G", "H"}
	d := make([][]float64, 8)
	for b := range d {
		centre := 0.0
		if b < 2 {
			centre = -math.Log(3)
		}
		d[b] = jitter(30, centre, 0.05)
	}
	rounds := roundsOf(d...)
	var dec Decision
	n := 6
	for ; n <= 30; n++ {
		dec = seq.Look(names, rounds[:n])
		if n == 8 && (dec.Verdict != Faster || dec.Settled || !strings.Contains(dec.Reason, "too few to claim")) {
			t.Errorf("look at 8 pairs: %s settled %v (%s); want faster, not settled while A and B are pending", dec.Verdict, dec.Settled, dec.Reason)
		}
		if dec.Settled {
			break
		}
	}
	if n != 10 || dec.Verdict != Faster || !slices.Equal(dec.FasterOn, []int{0, 1}) || len(dec.SlowerOn) != 0 {
		t.Fatalf("settled at %d pairs: %s (%s), faster on %v, slower on %v; want 10 pairs, faster on [0 1]", n, dec.Verdict, dec.Reason, dec.FasterOn, dec.SlowerOn)
	}
	for b, e := range dec.PerBench {
		want := NotFaster
		if b < 2 {
			want = Faster
		}
		if e.Verdict != want {
			t.Errorf("benchmark %s [%.3f, %.3f] labelled %s, want %s", e.Name, e.Low, e.High, e.Verdict, want)
		}
	}
}
