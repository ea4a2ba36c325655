package main

import (
	"time"

	"github.com/optimizer-dev/optimizer/evaluator"
)

// etaPlan is what bounds a job's remaining work: how many candidates test
// at once, and how long and how many pairs one benchmark may take. A zero
// plan is unknown: the tracker then falls back on its average per
// candidate.
type etaPlan struct {
	slots    int
	budget   time.Duration
	maxPairs int
	timeout  time.Duration // of one test run
	noBench  bool
}

// planOf is the plan of a job run with opts.
func planOf(opts evaluator.Options) etaPlan {
	return etaPlan{slots: opts.Parallel, budget: opts.Budget, maxPairs: opts.MaxPairs, timeout: opts.Timeout, noBench: opts.Bench == "none"}
}

// etaState follows a job's events to say how long is left, from what is
// left: candidates still to test, at the test time seen so far (those
// running, for what is left of it), spread over the slots; pairs left to the current benchmark, at its time per pair,
// bounded by its budget; and the benchmarks still to come, at the time the
// finished ones took (or, before any finished, the current one's pace to
// the pair cap, bounded by the budget). Verdicts that settle early make
// the real time shorter.
type etaState struct {
	plan       etaPlan
	testStart  map[string]time.Time
	testTimes  []time.Duration
	tested     int // passed their tests; a benchmark is to come
	inBench    bool
	benchStart time.Time // when the current benchmark held the machine
	pairs      int
	benchTimes []time.Duration
}

// observe takes one event, seen at now.
func (s *etaState) observe(e evaluator.Event, now time.Time) {
	if s.testStart == nil {
		s.testStart = map[string]time.Time{}
	}
	switch e.Kind {
	case evaluator.EventStart:
		switch e.Phase {
		case "behavior":
			s.testStart[e.Candidate] = now
		case "benchmark":
			s.inBench, s.benchStart, s.pairs = true, now, 0
		}
	case evaluator.EventTested:
		s.tested++
		s.testDone(e.Candidate, now)
	case evaluator.EventWaiting:
		if e.Message == "" && s.inBench {
			s.benchStart = now // the budget starts once the machine is held
		}
	case evaluator.EventSample:
		s.pairs++
	case evaluator.EventDone:
		if s.inBench {
			s.benchTimes = append(s.benchTimes, now.Sub(s.benchStart))
			s.inBench = false
			s.tested = max(0, s.tested-1)
			return
		}
		s.testDone(e.Candidate, now)
	}
}

func (s *etaState) testDone(name string, now time.Time) {
	if start, ok := s.testStart[name]; ok {
		s.testTimes = append(s.testTimes, now.Sub(start))
		delete(s.testStart, name)
	}
}

// left estimates the time left in the job: of its tests only (tests set)
// while no benchmark has given a pace, or of the whole job. ok is false
// when nothing measured yet says.
func (s *etaState) left(now time.Time, total, done int) (d time.Duration, tests, ok bool) {
	if s.plan.slots <= 0 {
		return 0, false, false
	}
	untested := total - done - s.tested
	if s.inBench {
		untested-- // the one being benchmarked passed its tests
	}
	untested = max(0, untested)
	if untested > 0 {
		if len(s.testTimes) == 0 {
			return 0, false, false
		}
		d = s.testsLeft(now, untested)
	}
	if s.plan.noBench {
		return d, false, true
	}
	per, known := s.perBench(now)
	if !known {
		return d, true, untested > 0
	}
	// the tested ones, and the untested at the pass rate seen so far
	toCome := float64(s.tested)
	if s.inBench {
		toCome-- // counted in currentLeft
	}
	if seen := len(s.testTimes); seen > 0 {
		toCome += float64(untested) * float64(s.tested+len(s.benchTimes)) / float64(seen)
	}
	d += time.Duration(toCome * float64(per))
	if s.inBench {
		d += s.currentLeft(now, per)
	}
	return d, false, true
}

// testsLeft is the time left to test the untested candidates: those
// running, each for what is left of the mean test time (or, past it, as
// long again as it has run, for test times have a long tail), never past
// the timeout; and those queued at the mean; spread over the slots.
func (s *etaState) testsLeft(now time.Time, untested int) time.Duration {
	m := mean(s.testTimes)
	var sum, longest time.Duration
	running := 0
	for _, st := range s.testStart {
		el := now.Sub(st)
		l := m - el
		if el >= m {
			l = el
		}
		if s.plan.timeout > 0 {
			l = min(l, max(0, s.plan.timeout-el))
		}
		sum += l
		longest = max(longest, l)
		running++
	}
	sum += time.Duration(max(0, untested-running)) * m
	return max(sum/time.Duration(s.plan.slots), longest)
}

// perBench is the time one benchmark is expected to take.
func (s *etaState) perBench(now time.Time) (time.Duration, bool) {
	if len(s.benchTimes) > 0 {
		return mean(s.benchTimes), true
	}
	if s.inBench && s.pairs > 0 && s.plan.maxPairs > 0 {
		per := now.Sub(s.benchStart) / time.Duration(s.pairs)
		full := per * time.Duration(s.plan.maxPairs)
		if s.plan.budget > 0 {
			full = min(full, s.plan.budget)
		}
		return full, true
	}
	return 0, false
}

// currentLeft is what is left of the benchmark in progress: its pairs to
// the cap at its pace, within its budget.
func (s *etaState) currentLeft(now time.Time, per time.Duration) time.Duration {
	el := now.Sub(s.benchStart)
	left := per - el
	if s.pairs > 0 && s.plan.maxPairs > 0 {
		left = time.Duration(s.plan.maxPairs-s.pairs) * (el / time.Duration(s.pairs))
		if len(s.benchTimes) > 0 {
			left = min(left, max(0, per-el))
		}
	}
	if s.plan.budget > 0 {
		left = min(left, s.plan.budget-el)
	}
	return max(0, left)
}

func mean(ds []time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(len(ds))
}
