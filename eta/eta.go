// Package eta estimates how long a job has left from the events it emits.
// It gives a range. Left is what remains if the job goes on as measured.
// Most is what remains if every test runs to its timeout and every
// benchmark to its pair cap. Waits for the machine are left out, since no
// one can foresee another job's hold on it.
package eta

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/result"
)

// An ETA reads one job's events. It is used by one goroutine: Observe
// every event in order, then ask Estimate. The fields are the job's limits.
type ETA struct {
	Slots    int           // candidates tested at once; 0: from the job-start event
	Timeout  time.Duration // of one test run; 0: none
	Budget   time.Duration // of one candidate's benchmark; 0: none
	MinPairs int
	MaxPairs int
	Sample   time.Duration // a calibrated Go benchmark sample; 0: unknown until a pair
	NoBench  bool          // --bench none: the tests are the whole job

	origin      time.Time
	waited      time.Duration // finished waits for the machine
	waitFrom    time.Time     // the wait under way; zero when none
	total, done int

	baseFrom time.Duration            // work time when phase 1 started
	baseTest time.Duration            // base's test run; 0 while unknown
	running  map[string]time.Duration // tests under way, from when
	stuck    map[string]bool          // of those, the ones said to be stuck
	tests    []time.Duration          // finished candidates' tests
	passed   []time.Duration          // of those, the ones that passed
	waiting  []string                 // passed, benchmark not finished

	bench     string // the candidate being benchmarked; "" for none
	benchFrom time.Duration
	lastPair  time.Duration
	have      int // pairs of the benchmark under way, reused ones included
	forecast  int // the pairs it is on course to take; 0: unknown
	setups    []time.Duration
	pairTimes []time.Duration
	baseTake  time.Duration // the latest pair's base sample
	after     time.Duration // what the latest pair said its benchmark takes after its pairs (the hack check)
	benchN    []int         // pairs each finished benchmark took
	history   []int         // pairs earlier jobs' benchmarks took
}

// Estimate is what is left of a job.
type Estimate struct {
	Left  time.Duration // if the job goes on as measured
	Most  time.Duration // at least Left
	Tests bool          // Left and Most cover the tests only: no benchmark pace yet
}

// work is the job's time at now less its waits for the machine.
func (e *ETA) work(now time.Time) time.Duration {
	w := now.Sub(e.origin) - e.waited
	if !e.waitFrom.IsZero() {
		w -= now.Sub(e.waitFrom)
	}
	return w
}

// Observe takes one event, seen at now.
func (e *ETA) Observe(ev result.Event, now time.Time) {
	if e.origin.IsZero() || ev.Kind == result.EventJobStart {
		e.origin = now
	}
	if e.running == nil {
		e.running, e.stuck = map[string]time.Duration{}, map[string]bool{}
	}
	if ev.Total > 0 {
		e.total = ev.Total
	}
	w := e.work(now)
	switch ev.Kind {
	case result.EventJobStart:
		if ev.Slots > 0 {
			e.Slots = ev.Slots
		}
		e.history = nil
		for _, b := range ev.History {
			e.history = append(e.history, b.Pairs)
		}
	case result.EventWaiting:
		switch {
		case ev.Message != "" && e.waitFrom.IsZero():
			e.waitFrom = now
		case ev.Message == "" && !e.waitFrom.IsZero():
			e.waited += now.Sub(e.waitFrom)
			e.waitFrom = time.Time{}
		}
	case result.EventPhase:
		if ev.Phase == result.PhaseBehavior {
			e.baseFrom = w
		}
	case result.EventBaseline:
		e.baseTest = w - e.baseFrom
		if strings.Contains(ev.Message, "(cached)") {
			e.baseTest = ev.AtBase // from the run it was cached from
		}
	case result.EventStart:
		switch ev.Phase {
		case result.PhaseBehavior:
			e.running[ev.Candidate] = w
		case result.PhaseBenchmark:
			e.bench, e.benchFrom, e.have, e.forecast = ev.Candidate, w, 0, 0
		}
	case result.EventStuck:
		e.stuck[ev.Candidate] = ev.Message != ""
	case result.EventTested:
		e.waiting = append(e.waiting, ev.Candidate)
		e.testDone(ev.Candidate, w, true)
	case result.EventSample:
		if e.have == 0 {
			e.setups = append(e.setups, max(0, w-e.benchFrom-2*ev.BaseSample))
		} else {
			e.pairTimes = append(e.pairTimes, w-e.lastPair)
		}
		e.have, e.baseTake, e.after = max(e.have+1, ev.Pair), ev.BaseSample, ev.After
		e.lastPair, e.forecast = w, ev.Forecast
	case result.EventDone:
		e.done = max(e.done, ev.Done)
		if i := slices.Index(e.waiting, ev.Candidate); i >= 0 {
			e.waiting = slices.Delete(e.waiting, i, i+1)
		}
		if ev.Candidate == e.bench {
			if e.have > 0 {
				e.benchN = append(e.benchN, e.have)
			}
			e.bench = ""
			return
		}
		e.testDone(ev.Candidate, w, false)
	}
}

func (e *ETA) testDone(name string, w time.Duration, passed bool) {
	from, ok := e.running[name]
	if !ok {
		return
	}
	delete(e.running, name)
	delete(e.stuck, name)
	e.tests = append(e.tests, w-from)
	if passed {
		e.passed = append(e.passed, w-from)
	}
}

// Estimate says what is left at now; ok is false when nothing measured yet
// can say, or the job is over.
func (e *ETA) Estimate(now time.Time) (est Estimate, ok bool) {
	if e.Slots <= 0 || e.total == 0 || e.done >= e.total {
		return Estimate{}, false
	}
	w := e.work(now)
	untested := max(0, e.total-e.done-len(e.waiting))
	if untested > 0 {
		ref := e.refTest()
		if ref == 0 {
			return Estimate{}, false
		}
		est.Left, est.Most = e.testsLeft(w, untested, ref)
	}
	if e.NoBench {
		return est, true
	}
	pair := e.pace()
	if pair == 0 {
		est.Tests = true
		return est, untested > 0
	}
	left, most := e.benchLeft(w, untested, pair)
	est.Left += left
	est.Most += most
	return est, true
}

// refTest is what a test still to run is expected to take: the mean of the
// candidates that passed, else base's run, else any finished test's.
func (e *ETA) refTest() time.Duration {
	switch {
	case len(e.passed) > 0:
		return mean(e.passed)
	case e.baseTest > 0:
		return e.baseTest
	}
	return mean(e.tests)
}

// testsLeft spreads the running and the queued tests over the slots. A
// running test is expected to end at ref; past it, to run as long again
// (slow tests have a long tail); a stuck one, to its timeout. At most,
// every test runs to the timeout.
func (e *ETA) testsLeft(w time.Duration, untested int, ref time.Duration) (left, most time.Duration) {
	var sumLeft, sumMost, longLeft, longMost time.Duration
	for name, from := range e.running {
		ran := w - from
		l := ref - ran
		if ran >= ref {
			l = ran
		}
		m := l
		if e.Timeout > 0 {
			m = max(0, e.Timeout-ran)
			l = min(l, m)
			if e.stuck[name] {
				l = m
			}
		}
		sumLeft, sumMost = sumLeft+l, sumMost+m
		longLeft, longMost = max(longLeft, l), max(longMost, m)
	}
	queued := time.Duration(max(0, untested-len(e.running)))
	perMost := ref
	if e.Timeout > 0 {
		perMost = max(ref, e.Timeout)
	}
	slots := time.Duration(e.Slots)
	left = max(longLeft, (sumLeft+queued*ref)/slots)
	most = max(longMost, (sumMost+queued*perMost)/slots)
	return left, most
}

// pace is a pair's expected time: the median of the pairs measured, else
// two base samples, or two calibrated ones; 0 when none is known.
func (e *ETA) pace() time.Duration {
	if len(e.pairTimes) > 0 {
		return median(e.pairTimes)
	}
	return 2 * cmp.Or(e.baseTake, e.Sample)
}

// benchLeft is the benchmark under way and those to come. One to come takes
// a set-up, and the median pairs of the finished benchmarks. It also takes
// what the latest pair said comes after the pairs (the hack check, which
// the budget counts too). Before any finish, it takes the pairs of earlier
// jobs, else the geometric middle of the pair limits. At most it runs to
// --max-pairs, never past the budget.
func (e *ETA) benchLeft(w time.Duration, untested int, pair time.Duration) (left, most time.Duration) {
	setup := e.baseTest
	if len(e.setups) > 0 {
		setup = median(e.setups)
	}
	minP, maxP := max(1, e.MinPairs), max(1, e.MaxPairs, e.MinPairs)
	pairs := e.benchN
	if len(pairs) == 0 {
		pairs = e.history
	}
	typical := int(math.Round(math.Sqrt(float64(minP * maxP))))
	if len(pairs) > 0 {
		typical = median(pairs)
	}
	capped := func(d time.Duration) time.Duration { return cmp.Or(min(d, e.Budget), d) }
	toCome := len(e.waiting)
	if e.bench != "" {
		toCome-- // the one under way is counted below
		ran := w - e.benchFrom
		expect := typical
		if e.forecast > 0 {
			expect = e.forecast
		}
		left += max(0, capped(setup+time.Duration(max(expect, e.have+1))*pair+e.after)-ran)
		most += max(0, capped(setup+time.Duration(max(maxP, e.have))*pair+e.after)-ran)
	}
	// Untested candidates pass at the rate seen so far; at most, all do.
	rate := 1.0
	if len(e.tests) > 0 {
		rate = float64(len(e.passed)) / float64(len(e.tests))
	}
	one := capped(setup + time.Duration(typical)*pair + e.after)
	left += time.Duration((float64(max(0, toCome)) + rate*float64(untested)) * float64(one))
	most += time.Duration(max(0, toCome)+untested) * capped(setup+time.Duration(maxP)*pair+e.after)
	return left, max(left, most)
}

func mean(ds []time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(max(1, len(ds)))
}

func median[T cmp.Ordered](xs []T) T {
	s := slices.Sorted(slices.Values(xs))
	return s[len(s)/2]
}
