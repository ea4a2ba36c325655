package stats

// Forecast is the look at which rounds like these would settle, or MaxPairs
// when none does. It repeats the rounds so far, in turn, up to each look
// from this one (and no earlier than FirstClaim), until one settles. A
// progress estimate reads it: a clear change settles at its first claim,
// and the wider the rounds spread against the threshold, the later. It is 0
// with fewer than two rounds, or rounds Look cannot judge.
func (s Sequential) Forecast(names []string, rounds [][]Pair) int {
	s = s.withDefaults()
	n := len(rounds)
	if n < 2 {
		return 0
	}
	if n >= s.MaxPairs {
		return n
	}
	ext := make([][]Pair, 0, s.MaxPairs)
	for look := max(n, s.FirstClaim()); look < s.MaxPairs; look++ {
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
