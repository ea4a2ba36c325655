package stats

// The spending plan (see Sequential.LookTails). Its shares were chosen with
// the simulation test (sim_test.go), which shows what moving them costs.
const (
	// fasterShare is the part of Alpha that guards "faster" claims (the
	// lower bound); the rest guards "slower" claims (the upper bound).
	// "Faster" picks winners and must clear the min-speedup margin, so
	// power there is what is scarce. "Slower" changes no selection (a
	// slower and a not-faster candidate both lose), and futility already
	// stops a candidate that cannot be faster, so it needs little.
	fasterShare = 2.0 / 3

	// earlyShare of each side's budget is spent over the first earlyLooks
	// looks. For "faster" that is 1/90 one-sided. It is enough for the
	// exact test at 8 pairs to accept one contrary pair of the 8 (1/128),
	// so a 2× speedup with an outlier still settles at 8.
	earlyShare = 1.0 / 3
	earlyLooks = 3
	// middleShare is spread evenly over the looks between. This trickle
	// settles clear changes (15%) well before the cap, and through futility
	// it ends most A/A comparisons early. Without it they all run to the
	// last look, whose large level then finds more false "slower"s.
	middleShare = 1.0 / 20
	// The last look gets the rest, about 3/5: it decides the borderline
	// changes (8% against a 5% threshold).
)

// planned returns the share of a side's budget planned to be spent by look
// i of looks (1-based).
func planned(i, looks int) float64 {
	early := min(earlyLooks, looks-1)
	middle := looks - 1 - early
	switch {
	case i >= looks:
		return 1
	case i <= early:
		return earlyShare * float64(i) / float64(early)
	}
	return earlyShare + middleShare*float64(i-early)/float64(middle)
}

// LookTails returns the one-sided error levels the look at n rounds spends.
// The lower bound of the speedup ("faster" claims) gets below. The upper
// bound ("slower", "mixed" and futility) gets above. Their sum is the
// look's two-sided level; the interval has confidence 1 - below - above.
//
// Looks run from MinPairs to MaxPairs. Each side has a budget, 2/3 of Alpha
// for "faster" and 1/3 for "slower", spent by a plan fixed in advance. The
// plan spends a third over the first three looks, a twentieth spread over
// the middle ones, and the rest at the last look. Each look spends the
// largest level the exact signed-rank bound attains within what is left of
// the plan so far. What a look cannot attain (6 pairs cannot give a 1%
// bound) is carried to the next. The levels spent sum to at most Alpha. So
// by the union bound the chance that any look makes any false claim is at
// most Alpha, however the looks are correlated.
//
// When a side's budget is not attainable at n, LookTails returns the
// unattainable budget for it, and Look makes no claim on that side. Below
// MinPairs the levels are the first look's; above MaxPairs, the last one's.
func (s Sequential) LookTails(n int) (below, above float64) {
	s = s.withDefaults()
	return s.tail(n, fasterShare*s.Alpha), s.tail(n, (1-fasterShare)*s.Alpha)
}

// BenchTails returns the one-sided error levels of the per-benchmark
// intervals at the look at n rounds, when there are k benchmarks. Each
// benchmark's interval backs claims of its own: faster on a subset of the
// benchmarks, mixed, the regression gate. So over k benchmarks the family
// is corrected by Bonferroni: each side's budget is divided by k and spent
// by the same plan as LookTails. With one benchmark they are LookTails.
// The aggregate keeps its own budget, so a verdict can rest on the
// aggregate or on a benchmark. In the worst case the two families add up
// to twice Alpha; TestSim_Subset measures what they add.
func (s Sequential) BenchTails(n, k int) (below, above float64) {
	s = s.withDefaults()
	if k <= 1 {
		return s.LookTails(n)
	}
	return s.tail(n, fasterShare*s.Alpha/float64(k)), s.tail(n, (1-fasterShare)*s.Alpha/float64(k))
}

// FirstClaim returns the first look, from MinPairs on, at which the
// aggregate can back a claim on either side. At the looks before it no
// bound is attainable (6 pairs cannot give the first look's level), so
// nothing can settle there. A caller that stops early for time does not
// stop before it, or its candidate ends not settled on a look that could
// never have settled. It is MaxPairs when no earlier look can claim.
func (s Sequential) FirstClaim() int {
	s = s.withDefaults()
	for n := s.MinPairs; n < s.MaxPairs; n++ {
		below, above := s.LookTails(n)
		if attainable(n, below) > 0 || attainable(n, above) > 0 {
			return n
		}
	}
	return s.MaxPairs
}

// tail runs one side's plan, of budget alpha, up to the look at n rounds.
func (s Sequential) tail(n int, alpha float64) float64 {
	first, last := s.MinPairs, s.MaxPairs
	n = min(max(n, first), last)
	looks := last - first + 1
	spent := 0.0
	for m := first; ; m++ {
		budget := alpha*planned(m-first+1, looks) - spent
		a := attainable(m, budget)
		if m == n {
			if a == 0 {
				return max(budget, 1e-300)
			}
			return a
		}
		spent += a
	}
}

// attainable returns the largest one-sided error not above budget that an
// exact signed-rank bound from n values attains, or 0 if none.
func attainable(n int, budget float64) float64 {
	if budget <= 0 {
		return 0
	}
	if _, a := criticalCount(n, budget); a <= budget*(1+1e-9) {
		return a
	}
	return 0
}
