package stats

import "math"

// Forecast is the look at which rounds like these would settle: the
// rounds so far, repeated in turn up to each look from this one (and no
// earlier than FirstClaim, before which no look can settle), until one
// settles; MaxPairs when none does, and len(rounds) when the look at these
// rounds settles. It is what a progress estimate expects a candidate's
// benchmark to take: a clear change settles at its first claim, and the
// wider the rounds spread against the threshold, the later it settles, or
// never. It is a forecast, not a claim: the rounds to come are not these.
// It is 0 with fewer than two rounds, whose spread says nothing yet, or
// rounds Look cannot judge.
func (s Sequential) Forecast(names []string, rounds [][]Pair) int {
	return s.forecast(names, rounds, len(rounds))
}

// ForecastUnchanged is the look at which a candidate that changes nothing
// would settle, if its rounds spread as these do: these rounds with each
// benchmark's median ratio taken out, repeated in turn from the first
// claim on (see Forecast). The spread is the machine's and the benchmark's
// more than the change's, so it is what a progress estimate expects of a
// candidate still to come, before it knows what that one changes: a
// quiet machine settles "not faster" in a few looks, a busy one may never.
// It is 0 with fewer than two rounds, or rounds Look cannot judge.
func (s Sequential) ForecastUnchanged(names []string, rounds [][]Pair) int {
	n := len(rounds)
	if n < 2 {
		return 0
	}
	nb := len(rounds[0])
	flat := make([][]Pair, n)
	xs := make([]float64, n)
	for r := range flat {
		if len(rounds[r]) != nb {
			return 0
		}
		flat[r] = make([]Pair, nb)
	}
	for b := range nb {
		for r, round := range rounds {
			if round[b].check() != nil {
				return 0
			}
			xs[r] = round[b].LogRatio()
		}
		shift := math.Exp(-Median(xs))
		for r, round := range rounds {
			flat[r][b] = Pair{Base: round[b].Base, Cand: round[b].Cand * shift}
		}
	}
	return s.forecast(names, flat, 0)
}

// forecast is the first look from from on (and from FirstClaim) at which
// rounds, repeated in turn up to it, settle; MaxPairs when none does.
func (s Sequential) forecast(names []string, rounds [][]Pair, from int) int {
	s = s.withDefaults()
	n := len(rounds)
	if n < 2 {
		return 0
	}
	if n >= s.MaxPairs && from >= n {
		return n
	}
	ext := make([][]Pair, 0, s.MaxPairs)
	for look := max(from, s.FirstClaim()); look < s.MaxPairs; look++ {
		for len(ext) < look {
			ext = append(ext, rounds[len(ext)%n])
		}
		dec := s.Look(names, ext[:look])
		if dec.Err != nil {
			return 0
		}
		if dec.Settled {
			return look
		}
	}
	return s.MaxPairs
}
