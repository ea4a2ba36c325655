package evaluator

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/stats"
)

// ETA estimates how long a job has left from its events (issue 12.5). It
// reads nothing but the events and the job's limits, so a progress line,
// watch and the daemon can all show it. An ETA is used by one goroutine:
// Observe every event in order, then ask Estimate.
//
// Time spent waiting for the machine (EventWaiting) is left out of every
// duration it measures, and the estimate says nothing of waits to come:
// another job's hold on the machine cannot be foreseen.
//
// What it predicts, from what is left:
//
//   - a test still to run takes the reference test time: the mean of the
//     candidates that passed (the same suite, run at the load and with the
//     build cache of now), before any, base's own (a candidate that fails
//     only ends sooner; from the baseline cache, the time of the run cached,
//     Event.AtBase); before either is known, the mean of every finished
//     candidate's test;
//   - a running test, what is left of the reference; past it, as long again
//     as it has run (slow tests have a long tail); never past --timeout
//     (and timeoutLate; the most, timeoutSlack); one of whose tests is
//     stuck (EventStuck: it has run far past its time at base), to there;
//   - tests are spread over the slots;
//   - a benchmark still to come (a candidate that passed, or an untested one
//     at the pass rate seen so far) takes a set-up (the mean of those after
//     the job's first; with only the first seen, the first without base's
//     build and calibration, see setup; each from the benchmark's start to
//     its first pair's start: its first pair's event less two base
//     samples) plus the pairs the finished benchmarks took, averaged
//     with priorWeight times each of the three kinds of candidate's: a
//     clear change's first claim (FirstClaim pairs), --max-pairs for one
//     at the threshold, and the pairs one that changes nothing would take
//     at the spread seen (the median of the benchmarks' unchanged
//     forecasts, one each: Event.ForecastUnchanged; before any is known,
//     the geometric middle of the first claim and --max-pairs), and with
//     up to historyWeight times the mean pairs of the latest earlier jobs
//     like this one (Event.History), at two of base's latest samples a pair
//     (a candidate is assumed to run about as fast as base: one that is 2×
//     slower makes its own pairs 1.5× longer), within --bench-budget, which
//     counts the set-up and stops no benchmark before its first claim
//     (FirstClaim pairs); one whose candidate was measured in those jobs
//     under the same name takes the mean of its own pairs there and of
//     ownWeight more at that, times what this job's finished benchmarks
//     took against their own past (ownRatio); those to come together take
//     the median of their sum, each drawn from the pairs those means
//     weigh (medianLeft), not the sum of the means;
//   - the benchmark being measured, at its own pace, the pairs its rounds so
//     far are on course to settle at (Event.Forecast: stats.Sequential's
//     Forecast, from its second pair), those reused from an earlier job
//     counted as behind it (Event.Pair); before that, the same pairs as if
//     it were still to come, and once it has passed them without settling,
//     to --max-pairs;
//   - a candidate that passed and was then settled without a benchmark
//     (failed by another candidate's contributed tests, or left unmeasured
//     when the job stopped), none;
//   - in phase 2 before any pair is measured (or with every candidate
//     tested, before phase 2 starts), a pair at two calibrated
//     samples (Sample) and the first set-up at base's test time and its
//     calibration (priorSetup).
//
// It cannot know whether a test will hang or a benchmark run to its pair
// cap, so Estimate also gives the most that is left if every running test
// runs to its timeout and every benchmark to --max-pairs (or its budget).
type ETA struct {
	Slots    int           // candidates tested at once; 0: none until the job's start event says (Event.Slots)
	Timeout  time.Duration // of one test run; 0: none
	Budget   time.Duration // of one candidate's benchmark; 0: none
	MinPairs int
	MaxPairs int
	// FirstClaim is the pairs before which no benchmark stops, settled or
	// out of budget (stats.Sequential.FirstClaim); 0: MinPairs.
	FirstClaim int
	NoBench    bool // --bench none: the tests are the whole job
	// Sample is a Go benchmark sample's calibrated time (300 ms): the pace
	// in phase 2 before any pair is measured, see priorSetup; 0: no
	// estimate in phase 2 before the first pair (a --bench command's
	// samples take what they take).
	Sample time.Duration

	origin   time.Time
	waited   time.Duration // finished waits for the machine
	waitFrom time.Time     // the start of the wait under way; zero when none
	total    int
	done     int

	baseFrom  time.Duration // work clock (see work) when phase 1 started
	baseTest  time.Duration // base's test time; 0 while unknown
	testFrom  map[string]time.Duration
	stuck     map[string]bool // candidates with a stuck test (EventStuck)
	testTimes []time.Duration // every finished candidate's test
	passTimes []time.Duration // of those, the ones that passed

	benching    bool   // phase 2 has started
	bench       string // the candidate being benchmarked; "" for none
	benchFrom   time.Duration
	firstPair   time.Duration
	lastPair    time.Duration
	pairs       int             // the pairs the benchmark being measured has measured in this job
	have        int             // and has in all, with those reused from an earlier job (Event.Pair)
	forecast    int             // the pairs the benchmark being measured is on course to take (Event.Forecast); 0: unknown
	unchanged   int             // the benchmark being measured's latest Event.ForecastUnchanged; 0: none yet
	benchUnch   []int           // each finished benchmark's last Event.ForecastUnchanged: their median, with unchanged, is the prior of one to come
	history     past            // the pairs earlier jobs' benchmarks took (EventJobStart's History)
	own         map[string]past // the same by candidate
	waiting     []string        // the candidates that passed their tests, benchmark not finished, in that order
	baseSamples []time.Duration
	pairSum     time.Duration // pairs' wall times after each benchmark's first, for events without BaseSample
	pairN       int
	benched     int             // benchmarks finished, with pairs or not
	first       time.Duration   // the job's first benchmark's set-up (base's build and calibration in it)
	firstBase   time.Duration   // that benchmark's first base sample
	firstSeen   bool            // first and firstBase are known
	setups      []time.Duration // the later benchmarks' set-ups: from their start to their first pair's start
	benchPairs  []int           // pairs of each finished benchmark
	benchNames  []string        // and its candidate
	benchTimes  []time.Duration
}

// NewETA is an ETA for a job run with o: with the limits the job will
// have, the defaults filled in as the job fills them (o.Parallel is taken
// as given: 0 is no estimate until the job's start event gives its slots).
func NewETA(o Options) *ETA {
	d := withDefaults(o)
	seq := stats.Sequential{MinPairs: d.MinPairs, MaxPairs: d.MaxPairs, Alpha: DefaultAlpha, MinSpeedup: d.MinSpeedup}
	first := seq.FirstClaim()
	if o.Quick {
		first = 0 // its budget may stop it at MinPairs
	}
	var sample time.Duration
	if o.Bench == "" {
		sample = d.calibrateTarget
	}
	return &ETA{Slots: o.Parallel, Timeout: d.Timeout, Budget: d.Budget, MinPairs: d.MinPairs, MaxPairs: d.MaxPairs,
		FirstClaim: first, NoBench: o.Bench == "none", Sample: sample}
}

// Estimate is what is left of a job.
type Estimate struct {
	Left time.Duration // the best guess
	// Most is what is left if every running test runs to its timeout and
	// every benchmark to its pair cap or budget, at the paces seen; at
	// least Left.
	Most time.Duration
	// Tests is set when Left and Most cover the tests only: no benchmark
	// has a pace yet.
	Tests bool
}

// work is the job's time at now without its waits for the machine.
func (e *ETA) work(now time.Time) time.Duration {
	w := now.Sub(e.origin) - e.waited
	if !e.waitFrom.IsZero() {
		w -= now.Sub(e.waitFrom)
	}
	return w
}

// Observe takes one event, seen at now.
func (e *ETA) Observe(ev Event, now time.Time) {
	if e.origin.IsZero() || ev.Kind == EventJobStart {
		e.origin = now
	}
	if ev.Kind == EventJobStart {
		e.history, e.own = nil, map[string]past{}
		for _, b := range ev.History {
			e.history = append(e.history, b.Pairs)
			e.own[b.Candidate] = append(e.own[b.Candidate], b.Pairs)
		}
		if ev.Slots > 0 {
			e.Slots = ev.Slots // the job's own word, for a reader that did not start it
		}
	}
	if e.testFrom == nil {
		e.testFrom, e.stuck = map[string]time.Duration{}, map[string]bool{}
	}
	if ev.Total > 0 {
		e.total = ev.Total
	}
	w := e.work(now)
	switch ev.Kind {
	case EventWaiting:
		switch {
		case ev.Message != "" && e.waitFrom.IsZero():
			e.waitFrom = now
		case ev.Message == "" && !e.waitFrom.IsZero():
			e.waited += now.Sub(e.waitFrom)
			e.waitFrom = time.Time{}
		}
	case EventPhase:
		if ev.Phase == "behavior" {
			e.baseFrom = w
		}
		e.benching = e.benching || ev.Phase == "benchmark"
	case EventBaseline:
		if strings.Contains(ev.Message, "(cached)") {
			// The run it was cached from: in watch, every save after the
			// first, and a job of one candidate has no other test time
			// until its own ends.
			e.baseTest = ev.AtBase
		} else {
			e.baseTest = w - e.baseFrom
		}
	case EventStart:
		switch ev.Phase {
		case "behavior":
			e.testFrom[ev.Candidate] = w
		case "benchmark":
			e.bench, e.benchFrom, e.pairs, e.have, e.forecast, e.unchanged = ev.Candidate, w, 0, 0, 0, 0
		}
	case EventStuck:
		if ev.Message != "" {
			e.stuck[ev.Candidate] = true
		} else {
			delete(e.stuck, ev.Candidate)
		}
	case EventTested:
		e.waiting = append(e.waiting, ev.Candidate)
		e.testDone(ev.Candidate, w, true)
	case EventSample:
		if e.pairs == 0 {
			e.firstPair = w
			// The set-up ends where the first pair starts: the pair is
			// counted with the others, at two base samples.
			setup := max(0, w-e.benchFrom-2*ev.BaseSample)
			switch {
			case e.benched == 0 && !e.firstSeen:
				e.first, e.firstBase, e.firstSeen = setup, ev.BaseSample, true
			default:
				e.setups = append(e.setups, setup)
			}
		} else {
			e.pairSum += w - e.lastPair
			e.pairN++
		}
		e.pairs++
		e.have = max(e.have+1, ev.Pair)
		e.lastPair = w
		e.forecast = ev.Forecast
		if ev.ForecastUnchanged > 0 {
			e.unchanged = ev.ForecastUnchanged
		}
		if ev.BaseSample > 0 {
			e.baseSamples = append(e.baseSamples, ev.BaseSample)
		}
	case EventDone:
		e.done = max(e.done, ev.Done)
		if i := slices.Index(e.waiting, ev.Candidate); i >= 0 {
			// Its benchmark is over, or it was settled without one.
			e.waiting = slices.Delete(e.waiting, i, i+1)
		}
		if e.bench != "" && ev.Candidate == e.bench {
			if e.pairs > 0 {
				e.benchPairs = append(e.benchPairs, e.pairs)
				e.benchNames = append(e.benchNames, e.bench)
			}
			if e.unchanged > 0 {
				e.benchUnch = append(e.benchUnch, e.unchanged)
			}
			e.benched++
			e.benchTimes = append(e.benchTimes, w-e.benchFrom)
			e.bench = ""
			return
		}
		e.testDone(ev.Candidate, w, false)
	}
}

func (e *ETA) testDone(name string, w time.Duration, passed bool) {
	from, ok := e.testFrom[name]
	if !ok {
		return
	}
	delete(e.stuck, name)
	e.testTimes = append(e.testTimes, w-from)
	if passed {
		e.passTimes = append(e.passTimes, w-from)
	}
	delete(e.testFrom, name)
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
		ref, known := e.refTest()
		if !known {
			return Estimate{}, false
		}
		est.Left, est.Most = e.testsLeft(w, untested, ref)
	}
	if e.NoBench {
		return est, true
	}
	left, most, known := e.benchLeft(w, untested)
	if !known {
		est.Tests = true
		return est, untested > 0
	}
	est.Left += left
	est.Most += most
	return est, true
}

// refTest is the time a test still to run is expected to take. Base's
// run is the job's first, beside the first candidates' first builds: at a
// load of 25 it took 15.8 s on go-humanize where the candidates' took
// about 11 s, and 8.7 s on the demo where a passing candidate's took 5.7 s.
// Once a candidate has passed, its time says more.
func (e *ETA) refTest() (time.Duration, bool) {
	ref := e.baseTest
	if len(e.passTimes) > 0 {
		ref = mean(e.passTimes)
	}
	if ref == 0 && len(e.testTimes) > 0 {
		ref = mean(e.testTimes)
	}
	return ref, ref > 0
}

// testsLeft is the time left to test the untested candidates, those
// running and those queued, over the slots: the best guess and the most.
func (e *ETA) testsLeft(w time.Duration, untested int, ref time.Duration) (left, most time.Duration) {
	var sum, longest, sumMost, longestMost time.Duration
	running := 0
	for name, from := range e.testFrom {
		el := w - from
		l, m := ref-el, ref-el
		if el >= ref {
			l, m = el, el
		}
		if e.Timeout > 0 {
			end := max(0, e.Timeout+timeoutLate-el) // if it runs to the timeout
			m = max(0, e.Timeout+timeoutSlack-el)
			l = min(l, end)
			if e.stuck[name] {
				l = end
			}
		}
		sum, sumMost = sum+l, sumMost+m
		longest, longestMost = max(longest, l), max(longestMost, m)
		running++
	}
	queued := time.Duration(max(0, untested-running)) * ref
	slots := time.Duration(e.Slots)
	return max((sum+queued)/slots, longest), max((sumMost+queued)/slots, longestMost)
}

// timeoutSlack is the most a test run that reaches --timeout goes on past
// it, as seen from its candidate's start: the timeout counts from the test
// command's start, after the slot is set up, and the run ends once its
// process group is killed and its output read. On the demo its hang ended
// 0.0-0.4 s after its start and the timeout, and a bound without it was
// short on the lines of those seconds. timeoutLate is what the estimate
// takes: with the slack, a stuck test's ETA was a second long, and outside
// 1.5× of what was left for its last two seconds.
const (
	timeoutSlack = time.Second
	timeoutLate  = 200 * time.Millisecond
)

// benchLeft is the time left in phase 2: the benchmark being measured and
// those to come. known is false before any pair has a pace.
func (e *ETA) benchLeft(w time.Duration, untested int) (left, most time.Duration, known bool) {
	var pair time.Duration
	switch {
	case len(e.baseSamples) > 0:
		// The latest samples: a shared machine's load moves over minutes,
		// and the next pairs run at the load of now, not of the job's start.
		pair = 2 * mean(e.baseSamples[max(0, len(e.baseSamples)-paceWindow):])
	case e.pairN > 0:
		pair = e.pairSum / time.Duration(e.pairN) // events from a client that does not relay BaseSample
	case (e.benching || untested == 0 && len(e.waiting) > 0) && e.Sample > 0 && e.prior() > 0:
		// Nothing measured yet (phase 2 has started, or every candidate
		// is tested and it is about to): base's samples are calibrated to
		// Sample.
		pair = 2 * e.Sample
	default:
		return 0, 0, false
	}
	// The pairs a benchmark to come takes (pool): the finished ones' and
	// priorWeight each of the three kinds of candidate. A clear change
	// settles at its first claim, one at the threshold runs to the cap,
	// and one that changes nothing settles as soon as the spread allows
	// (unchangedMedian; the middle of the first claim and the cap before
	// any is known): the first few finished say little of the rest
	// (under load on go-humanize the first settled at 8 pairs and the
	// next seven ran to 30; on a quiet machine the first two ran to 30
	// and the next seven took 8-25; on a noisy one the first five ran to
	// 30, and three of the four after them settled at 8). Earlier jobs
	// like this one (Event.History) say what the benchmarks of this
	// repository take on this machine, and a candidate measured in them
	// under the same name what its own take.
	atoms := e.pool()
	pairs := expectedPairs(atoms)
	setup := e.setup()
	perOf := func(p float64) time.Duration {
		d := setup + time.Duration(p*float64(pair))
		if e.Budget > 0 {
			// The budget counts the set-up, and stops no benchmark before
			// its first claim.
			d = min(d, max(e.Budget+pair, setup+time.Duration(e.firstClaim())*pair))
		}
		return d
	}
	perMost := perOf(float64(e.MaxPairs))
	pool := newUrn(atoms)
	ratio := e.ownRatio(pairs)
	toCome := len(e.waiting)
	if e.bench != "" {
		toCome--
		l, m := e.currentLeft(w, e.pairsOf(e.bench, pairs, ratio), pair)
		left, most = left+l, most+m
	}
	var names []string // the candidates waiting for their benchmark, but the one measured
	for _, name := range e.waiting {
		if name != e.bench && len(names) < toCome {
			names = append(names, name)
		}
	}
	most += time.Duration(len(names)) * perMost
	var rate float64 // the chance an untested candidate passes, as seen so far
	if seen := len(e.testTimes); seen > 0 && untested > 0 {
		rate = float64(len(e.waiting)+len(e.benchTimes)) / float64(seen)
		most += time.Duration(float64(untested) * rate * float64(perMost))
	}
	if e.bench == "" && e.benched == 0 && !e.firstSeen && len(names) > 0 {
		// Between the phases: the first to come is the job's first
		// benchmark, with base's build and calibration in its set-up.
		first := e.priorSetup() - setup
		left, most = left+first, most+first
	}
	if len(names)+untested > drawnUpTo {
		// Their sum's median is its mean, within a few per cent.
		for _, name := range names {
			left += perOf(e.pairsOf(name, pairs, ratio))
		}
		return left + time.Duration(float64(untested)*rate*float64(perOf(pairs))), most, true
	}
	toDraw := make([]urn, len(names))
	for i, name := range names {
		toDraw[i] = e.urnOf(name, pool, ratio)
	}
	left += medianLeft(toDraw, untested, rate, pool, perOf)
	return left, most, true
}

// draws is how many times medianLeft draws the benchmarks to come.
const draws = 1001

// drawnUpTo is how many benchmarks to come (untested candidates included)
// medianLeft draws at most; past it the ETA takes the sum of their means.
// The gap between median and mean shrinks as they add up: of 32 drawn
// from 8 pairs or 30, with 30 one time in 10 to 3 in 10, the median sum is
// within 2.2% of the mean (within 13% for 8 drawn). Drawn, 200 candidates
// with a history of 1,000 benchmarks took 32 ms an estimate, which a
// display asks for every second; with their means, 0.6 ms
// (BenchmarkETA_Estimate).
const drawnUpTo = 32

// medianLeft is the median of the time the benchmarks still to come take:
// each of toDraw draws its pairs, and each of the untested candidates
// passes with chance rate and then draws from pool. The median,
// not the mean: the pairs of a benchmark are near its first claim for most
// candidates and at the cap for a few (one at the threshold), so with few
// benchmarks left the time they take is more often below the mean than
// above it, and an ETA at the mean is long for most of a job's end.
// Replayed on 60 stored go-humanize jobs with a history (go run
// ./bench/eta -history, docs/speed.md), the ETA was within 1.5× for 83.7%
// of the benchmark phase on average, where the mean gave 81.9%, and 67.6%
// against 64.4% without their history (a new user's first job); on 48
// demo jobs 90.2% either way. The draws are the same at every call (a
// fixed seed), so the ETA does not jitter between two estimates of the
// same state.
func medianLeft(toDraw []urn, untested int, rate float64, pool urn, per func(float64) time.Duration) time.Duration {
	if len(toDraw) == 0 && (untested == 0 || rate == 0) {
		return 0
	}
	rng := rand.New(rand.NewPCG(1, 2))
	sums := make([]time.Duration, draws)
	for i := range sums {
		var sum time.Duration
		for _, u := range toDraw {
			sum += per(u.draw(rng))
		}
		for range untested {
			if rng.Float64() < rate {
				sum += per(pool.draw(rng))
			}
		}
		sums[i] = sum
	}
	slices.Sort(sums)
	return sums[len(sums)/2]
}

// urn draws from atoms, each as likely as its weight: a draw is a binary
// search of their running weights, so a history of many benchmarks costs
// little.
type urn struct {
	atoms []atom
	upto  []float64 // upto[i]: the weights of atoms[:i+1]
}

func newUrn(atoms []atom) urn {
	u := urn{atoms: atoms, upto: make([]float64, len(atoms))}
	var w float64
	for i, a := range atoms {
		w += a.weight
		u.upto[i] = w
	}
	return u
}

// draw is one of its atoms' pairs.
func (u urn) draw(rng *rand.Rand) float64 {
	x := rng.Float64() * u.upto[len(u.upto)-1]
	i, _ := slices.BinarySearch(u.upto, x)
	return u.atoms[min(i, len(u.atoms)-1)].pairs
}

// currentLeft is what is left of the benchmark being measured: the pairs
// it is on course to take (or those expected of one to come, to the cap
// once it has passed them) at its own pace, within its budget; and the
// most, to the cap.
func (e *ETA) currentLeft(w time.Duration, pairs float64, pair time.Duration) (left, most time.Duration) {
	el := w - e.benchFrom
	pace := pair
	if e.pairs >= 2 {
		pace = (e.lastPair - e.firstPair) / time.Duration(e.pairs-1)
	}
	// The forecast and the cap count the pairs reused from an earlier
	// job (a refinement goes on from its quick look's); the time, those
	// measured now.
	want := pairs
	switch {
	case e.forecast > 0 && e.forecast >= e.have:
		want = float64(e.forecast) // at e.have: its look now settles
	case float64(e.have) >= pairs:
		want = float64(e.MaxPairs)
	}
	left = time.Duration((want - float64(e.have)) * float64(pace))
	most = time.Duration(max(0, e.MaxPairs-e.have)) * pace
	if e.pairs == 0 {
		setup := e.setup()
		if e.benched == 0 && !e.firstSeen {
			setup = e.priorSetup() // the job's first: base's build and calibration in it
		}
		left += max(0, setup-el)
		most += max(0, setup-el)
	}
	if e.Budget > 0 {
		budget := max(e.Budget-el+pace, time.Duration(e.firstClaim()-e.have)*pace)
		left, most = min(left, budget), min(most, budget)
	}
	return max(0, left), max(0, left, most)
}

// firstClaim is the pairs before which no benchmark stops.
func (e *ETA) firstClaim() int {
	return min(max(e.FirstClaim, e.MinPairs), max(e.MaxPairs, e.MinPairs))
}

// priorWeight is how many finished benchmarks each of the three kinds of
// candidate counts as in the prior of one to come (pool): a clear change
// settles at its first claim, one that changes nothing where the spread
// seen lets it (unchangedMedian), one at the threshold runs to the cap.
// Which kinds a job's candidates are, its finished benchmarks say; until
// they do, each is as likely. With the unchanged forecast alone as the
// prior (at a weight of 4, until the eleventh pass), a noisy machine's
// forecast of the cap made every benchmark to come 30 pairs, where a
// third of them settled at 8. Replayed on 22 stored jobs of nine
// candidates, 15 on go-humanize and 7 on uuid (go run ./bench/eta
// -history, docs/speed.md), the three kinds at 2 each kept the ETA within
// 1.5× for 90.6% of the benchmark phase on average without a history,
// where the unchanged forecast alone gave 78.4%; replayed at half the
// pairs' spread (-quiet 0.5, as a quieter machine would have measured
// them), 75.0% against 56.8%, and at 0.3 of it 67.2% against 64.7%.
// Other weights of the three (1 each; 3 for the first claim and the cap)
// came within 2.5 points; the first claim and the cap alone, without
// the unchanged forecast, lost four at 0.3.
const priorWeight = 2

// historyWeight is how many finished benchmarks the earlier jobs' mean
// (Event.History) counts as at most: a history of one benchmark counts as
// one. Beside the prior (priorWeight), not in its place: a job after a
// burst of load would inherit pairs the machine no longer needs. Replayed
// on the 26 stored go-humanize jobs that had one, each with the five
// finished jobs before it as its history (go run ./bench/eta -history,
// docs/speed.md), the history at a weight of 2 kept the ETA within 1.5×
// for 71.8% of the benchmark phase on average, where the unchanged
// forecast alone gave 67.6%; weights of 1, 4 and 8 gave 70.3%, 70.0% and
// 69.3%. In the place of the unchanged forecast, a history of five loaded
// jobs took the first quiet job after them from 73% to 5%.
const historyWeight = 2

// past is the pairs benchmarks of earlier jobs took.
type past []int

// sum is their sum.
func (p past) sum() float64 {
	sum := 0
	for _, n := range p {
		sum += n
	}
	return float64(sum)
}

// mean is their mean; 0 for none.
func (p past) mean() float64 {
	if len(p) == 0 {
		return 0
	}
	return p.sum() / float64(len(p))
}

// ownWeight is how many benchmarks' worth of expectedPairs a candidate's
// own earlier benchmarks (Event.History, by name) are averaged with: a
// candidate at the threshold runs to the cap and one with a clear change
// settles at its first claim, whatever the job's other candidates take,
// and a candidate measured again under the same name (one edited since,
// or measured with --no-cache; watch's working tree; an optimize
// generator's next edit) is likely to do as it did. Replayed on the 32
// stored go-humanize jobs with a history (go run ./bench/eta -history,
// docs/speed.md), without ownRatio, a weight of 2 kept the ETA within
// 1.5× for 76.3% of the benchmark phase on average, where expectedPairs
// alone gave 69.9%; weights of 0, 1, 3 and 4 gave 74.0%, 75.8%, 75.1% and
// 73.8%.
const ownWeight = 2

// ratioWeight is how many benchmarks' worth of expectedPairs, on both
// sides, ownRatio starts from: the first finished benchmark moves it, but
// not all the way. Replayed as ownWeight was, with both: 78.8% at 2, 78.6%
// at 0.5 and 1, 78.3% at 4 and 77.6% at 8 (76.3% without ownRatio).
const ratioWeight = 2

// pairsOf is the pairs candidate name's benchmark is expected to take: the
// mean of its own earlier benchmarks' and of ownWeight more at pairs,
// what one still to come is expected to take, times ratio (ownRatio),
// from its first claim to the cap; pairs when it has none.
func (e *ETA) pairsOf(name string, pairs, ratio float64) float64 {
	p, ok := e.own[name]
	if !ok {
		return pairs
	}
	own := (p.sum() + ownWeight*pairs) / (float64(len(p)) + ownWeight) * ratio
	return e.within(own)
}

// urnOf is what candidate name's benchmark may take: pool, or for a
// candidate measured in earlier jobs under this name, each of its own
// benchmarks' pairs and pool's as ownWeight more of them, all times ratio,
// from its first claim to the cap (pairsOf weighs them so, and bounds
// their mean).
func (e *ETA) urnOf(name string, pool urn, ratio float64) urn {
	own, ok := e.own[name]
	if !ok {
		return pool
	}
	total := pool.upto[len(pool.upto)-1]
	atoms := make([]atom, 0, len(own)+len(pool.atoms))
	for _, p := range own {
		atoms = append(atoms, atom{e.within(float64(p) * ratio), 1})
	}
	for _, a := range pool.atoms {
		atoms = append(atoms, atom{e.within(a.pairs * ratio), ownWeight * a.weight / total})
	}
	return newUrn(atoms)
}

// within is pairs from the first claim to the cap.
func (e *ETA) within(pairs float64) float64 {
	return min(max(pairs, float64(e.firstClaim())), float64(e.MaxPairs))
}

// ownRatio is what this job's finished benchmarks took against what they
// took before, of those whose candidates have a history: the machine is
// quieter or busier than in the earlier jobs, or the code changed, and a
// candidate still to come is likely to take its past pairs times as much.
// Both sides count ratioWeight benchmarks at pairs more.
func (e *ETA) ownRatio(pairs float64) float64 {
	now, before := ratioWeight*pairs, ratioWeight*pairs
	for i, name := range e.benchNames {
		if p, ok := e.own[name]; ok {
			now += float64(e.benchPairs[i])
			before += p.mean()
		}
	}
	if before <= 0 {
		return 1 // nothing to scale by
	}
	return now / before
}

// atom is one number of pairs a benchmark to come may take, with its
// weight among the others.
type atom struct{ pairs, weight float64 }

// expectedPairs is the pairs a benchmark still to come is expected to
// take, the weighted mean of pool's atoms.
func expectedPairs(atoms []atom) float64 {
	var n, w float64
	for _, a := range atoms {
		n += a.pairs * a.weight
		w += a.weight
	}
	return n / w
}

// pool is what a benchmark still to come may take, as expectedPairs
// weighs it: each finished benchmark's pairs; the three kinds of
// candidate, each as priorWeight of them: a clear change at its first
// claim, one that changes nothing at the unchanged forecast
// (unchangedMedian), one at the threshold at the cap; and the earlier
// jobs' benchmarks (history) as up to historyWeight, each an equal part.
func (e *ETA) pool() []atom {
	atoms := make([]atom, 0, 3+len(e.history)+len(e.benchPairs))
	atoms = append(atoms, atom{float64(e.firstClaim()), priorWeight}, atom{float64(e.unchangedMedian()), priorWeight},
		atom{float64(e.MaxPairs), priorWeight})
	if n := float64(len(e.history)); n > 0 {
		for _, p := range e.history {
			atoms = append(atoms, atom{float64(p), min(n, historyWeight) / n})
		}
	}
	for _, p := range e.benchPairs {
		atoms = append(atoms, atom{float64(p), 1})
	}
	return atoms
}

// unchangedMedian is the pairs one that changes nothing is expected to
// take: the median of each benchmark's last unchanged forecast, the one
// being measured's latest among them. One forecast a benchmark: a noisy
// one that runs to the cap makes 30 of them where a quiet one makes 8, and
// the median of those says the cap. Before any is known, the geometric
// middle of the first claim and the cap, 15 of 8 and 30: a benchmark takes
// one or the other or between, and the middle is within 1.5× of both when
// they are within 2.25× of each other, as a quick look's budget makes them
// (watch's first save on a fresh store said 17 s for a benchmark of 8.6 s
// with the cap; on a quiet machine most settle at the first claim, under
// load most run to the cap).
func (e *ETA) unchangedMedian() int {
	xs := e.benchUnch
	if e.unchanged > 0 && e.bench != "" {
		xs = append(slices.Clip(xs), e.unchanged)
	}
	if len(xs) == 0 {
		return int(math.Round(math.Sqrt(float64(e.firstClaim() * e.MaxPairs))))
	}
	xs = slices.Sorted(slices.Values(xs))
	return xs[(len(xs)-1)/2]
}

// paceWindow is how many of the latest base samples give the pace of the
// pairs to come.
const paceWindow = 10

// calibrationSamples is how many of base's samples one calibration of
// base's benchmarks takes: the testing package grows b.N up to the
// calibration's target, the time a sample is then given, so the last run
// takes about one sample and the growing runs before it up to one more.
const calibrationSamples = 1.5

// setup is the set-up expected of a benchmark still to come: the mean of
// the set-ups after the job's first, which are a candidate's build and
// staging; with only the first one seen, that one without what base's part
// in it is expected to be. The first set-up is base's build, base's
// calibration and the candidate's build; base's build takes about as long
// as the candidate's (the same package at nearly the same source), and the
// calibration about calibrationSamples of base's samples. So a later set-up
// is (first − calibration) / 2.
func (e *ETA) setup() time.Duration {
	if len(e.setups) > 0 {
		return mean(e.setups)
	}
	if !e.firstSeen {
		return e.prior() / 2 // priorSetup without the calibration, halved
	}
	cal := time.Duration(calibrationSamples * float64(e.firstBase))
	return max(0, e.first-cal) / 2
}

// priorSetup is the first benchmark's set-up predicted before it is seen:
// the reference test time (prior) and base's calibration, calibrationSamples
// of Sample. The set-up builds base's test binary and the candidate's, runs
// go list and calibrates base; a test run built one binary and ran the
// tests. On the demo the set-up was 2.0 s with base's tests 2.0 s, and
// 6.2 s with them 4.8 s at a load of 19. It is a guess for a suite whose
// tests take far longer than its build, replaced at the first pair.
func (e *ETA) priorSetup() time.Duration {
	return e.prior() + time.Duration(calibrationSamples*float64(e.Sample))
}

// prior is the test time the set-ups are predicted from before any is
// seen: the reference test time; 0 when none is known.
func (e *ETA) prior() time.Duration {
	ref, _ := e.refTest()
	return ref
}

func mean(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(len(ds))
}
