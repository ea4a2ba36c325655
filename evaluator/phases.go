package evaluator

import "time"

// span is the wall time of one phase: end is zero while it runs.
type span struct {
	start, end time.Time
}

// begin marks the start of a phase's wall time and logs it. A phase begun
// twice keeps its first start.
func (j *job) begin(name string) {
	j.mu.Lock()
	first := j.spans[name] == nil
	if first {
		j.spans[name] = &span{start: time.Now()}
	}
	j.mu.Unlock()
	if first {
		j.log.Debug("phase start", "phase", name)
	}
}

// end marks the end of a phase begun with begin, and logs its time.
func (j *job) end(name string) {
	j.mu.Lock()
	s := j.spans[name]
	ended := s != nil && s.end.IsZero()
	if ended {
		s.end = time.Now()
	}
	j.mu.Unlock()
	if ended {
		j.log.Debug("phase end", "phase", name, "took", s.end.Sub(s.start).Round(time.Millisecond))
	}
}

// phaseTimes returns each phase's seconds; one still running counts to
// now. j.mu must be held.
func (j *job) phaseTimes() *Phases {
	secs := func(name string) float64 {
		s := j.spans[name]
		if s == nil {
			return 0
		}
		end := s.end
		if end.IsZero() {
			end = time.Now()
		}
		return end.Sub(s.start).Seconds()
	}
	return &Phases{
		Resolve:     secs(PhaseResolve),
		Behavior:    secs(PhaseBehavior),
		Contributed: secs(PhaseContributed),
		Benchmark:   secs(PhaseBenchmark),
		Profile:     secs(PhaseProfile),
	}
}

// since is the time from start, rounded for a log line.
func since(start time.Time) time.Duration {
	return time.Since(start).Round(time.Millisecond)
}

// dur is a number of seconds as a duration rounded to the millisecond, for
// a log line or an event.
func dur(seconds float64) time.Duration {
	return time.Duration(seconds * float64(time.Second)).Round(time.Millisecond)
}
