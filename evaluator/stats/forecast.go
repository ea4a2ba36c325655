package stats

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
	s = s.withDefaults()
	n := len(rounds)
	if n < 2 {
		return 0
	}
	if n >= s.MaxPairs {
		return n
	}
	ext := make([][]Pair, n, s.MaxPairs)
	copy(ext, rounds)
	for look := max(n, s.FirstClaim()); look < s.MaxPairs; look++ {
		for len(ext) < look {
			ext = append(ext, rounds[len(ext)%n])
		}
		dec := s.Look(names, ext)
		if dec.Err != nil {
			return 0
		}
		if dec.Settled {
			return look
		}
	}
	return s.MaxPairs
}
