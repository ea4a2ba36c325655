package result

import (
	"math"
	"slices"
	"time"

	"github.com/optimizer-dev/optimizer/profiler"
	"github.com/optimizer-dev/optimizer/stats"
)

// Verdict is the outcome for one candidate.
type Verdict string

// The verdicts, as DESIGN.md defines them.
const (
	VerdictPending   Verdict = "pending"
	VerdictWinner    Verdict = "winner"
	VerdictFaster    Verdict = "faster"
	VerdictNotFaster Verdict = "not-faster"
	VerdictSlower    Verdict = "slower"
	VerdictMixed     Verdict = "mixed"
	VerdictPassed    Verdict = "passed"
	VerdictFailed    Verdict = "failed"
	VerdictDuplicate Verdict = "duplicate"
	// VerdictOverfit: faster on the benchmarks its generators were shown,
	// not on those held out from them (Options.Holdout; holdout.go).
	VerdictOverfit Verdict = "overfit"
	// VerdictSuspect: faster by not doing the work, as far as the hack
	// check can tell (Hacks says what it saw).
	VerdictSuspect Verdict = "suspect"
	// VerdictLayoutSensitive: faster in one of the code layouts its pairs
	// took turns in and not in the other, by more than the pairs' noise
	// explains. It is an effect of where the code sits, not of the change.
	VerdictLayoutSensitive Verdict = "layout-sensitive"
)

// QualifierFasterOnSome qualifies a candidate that is not faster over all
// its benchmarks, but faster on some of them and slower on none: "faster on
// 2 of 13 benchmarks, none slower". Such a candidate can win (see
// selectWinner).
const QualifierFasterOnSome = "faster-on-some"

// FailureKind says why a candidate failed.
type FailureKind string

// The failure kinds.
const (
	FailApply   FailureKind = "apply"
	FailBuild   FailureKind = "build"
	FailTest    FailureKind = "test"
	FailTimeout FailureKind = "timeout"
	FailError   FailureKind = "error"
)

// Failure keeps what a person or a generator needs to repair a candidate.
type Failure struct {
	Kind    FailureKind `json:"kind"`
	Tests   []string    `json:"tests,omitempty"`
	Message string      `json:"message"`
	Output  string      `json:"output,omitempty"`
}

// AddNote appends more to c's note, after "; " when it has one.
func (c *CandidateResult) AddNote(more string) {
	if c.Note == "" {
		c.Note = more
		return
	}
	c.Note += "; " + more
}

// BenchSlower reports whether c's benchmark b is significantly slower than
// base beyond the threshold, as the evaluator judged it (SlowerOn). An old
// report without a Level is judged by b's interval (stats.SlowerBeyond).
// Metrics beside the judged one are not judged (Aside).
func (c CandidateResult) BenchSlower(b BenchResult, minSpeedup float64) bool {
	if b.Level > 0 {
		return !b.Aside() && slices.Contains(c.SlowerOn, b.Name)
	}
	return !b.Aside() && b.CI[1] > 0 && stats.SlowerBeyond(b.CI[1], minSpeedup)
}

// BenchFaster is BenchSlower's twin: significantly faster by at least the
// threshold (FasterOn).
func (c CandidateResult) BenchFaster(b BenchResult, minSpeedup float64) bool {
	if b.Level > 0 {
		return !b.Aside() && slices.Contains(c.FasterOn, b.Name)
	}
	return !b.Aside() && stats.FasterBeyond(b.CI[0], minSpeedup)
}

// Label is b's verdict as the interval beside it says, by the one rule for
// a benchmark row (stats.Judge). It is faster when its lower bound clears
// 1+minSpeedup, slower when the whole interval lies below 1, and not-faster
// otherwise. Every renderer labels a row with it. So a row at 0.35× [0.34×,
// 0.39×] is slower everywhere, whatever label an older report stored. A
// metric beside the judged one (Aside), or a row without an interval, keeps
// its Verdict.
func (b BenchResult) Label(minSpeedup float64) Verdict {
	if b.Aside() || b.CI == [2]float64{} {
		return b.Verdict
	}
	return Verdict(stats.Judge(b.CI[0], b.CI[1], minSpeedup))
}

// Columns are the BASE and CANDIDATE values a timed row prints: base, the
// median of base's samples, and base divided by the speedup, the
// candidate's time at the paired estimate. Their ratio is then the SPEEDUP
// printed beside them; the median of the candidate's own samples could
// say 9.90 ns against base's 6.95 ns beside a paired 0.99×. An exact
// metric, a row without a speedup, or an average of none on either side
// (whose speedup stats.Positive made finite) prints its two medians.
func (b BenchResult) Columns() (base, cand float64) {
	if b.Exact || !(b.Speedup > 0) || math.IsInf(b.Speedup, 0) || b.Beside && (b.Base == 0 || b.Candidate == 0) {
		return b.Base, b.Candidate
	}
	return b.Base, b.Base / b.Speedup
}

// Labelled returns a copy of r whose benchmark rows carry their Label as
// Verdict; r is not changed. The JSON report is written from it.
func (r *Report) Labelled() *Report {
	out := *r
	out.Candidates = slices.Clone(r.Candidates)
	for i := range out.Candidates {
		c := &out.Candidates[i]
		c.Benchmarks = slices.Clone(c.Benchmarks)
		for j := range c.Benchmarks {
			c.Benchmarks[j].Verdict = c.Benchmarks[j].Label(r.MinSpeedup)
		}
	}
	return &out
}

// BenchResult is the comparison of one benchmark metric between base and candidate.
type BenchResult struct {
	Name string `json:"name"`
	Unit string `json:"unit"`
	// Base is the median of base's samples. Candidate is, for a timed
	// metric, Base/Speedup (see Columns); for an exact one, the median of
	// the candidate's samples.
	Base      float64    `json:"base"`
	Candidate float64    `json:"candidate"`
	Speedup   float64    `json:"speedup"` // base/candidate (for sec/op-like units)
	CI        [2]float64 `json:"ci"`
	P         float64    `json:"p"`
	// Level is the confidence of CI: with several benchmarks it is
	// corrected for their number and for the looks, while P is the
	// unadjusted signed-rank p-value of this benchmark alone.
	Level   float64 `json:"level,omitempty"`
	Pairs   int     `json:"pairs"`
	Verdict Verdict `json:"verdict,omitempty"`
	// Exact marks, in reports made before Beside, B/op and allocs/op
	// compared as exact: Increased then means any increase, untested.
	Exact bool `json:"exact,omitempty"`
	// Increased and Decreased say, for a metric beside the judged one,
	// whether the candidate's value is significantly higher or lower than
	// base's.
	Increased bool `json:"increased,omitempty"`
	// Beside marks a metric reported beside the judged one: B/op and
	// allocs/op, which are means over the iterations, or the time when
	// --metric judges another. It has its interval, at the level in Level
	// (corrected for the metrics beside, stats.Beside), but no verdict.
	Beside    bool `json:"beside,omitempty"`
	Decreased bool `json:"decreased,omitempty"`
}

// Aside reports whether b is a metric beside the judged one, which no
// verdict, count of faster or slower benchmarks, or regression rests on.
func (b BenchResult) Aside() bool { return b.Beside || b.Exact }

// CandidateResult is everything the job learned about one candidate.
type CandidateResult struct {
	Name        string        `json:"name"`
	ID          string        `json:"id"`
	Source      string        `json:"source,omitempty"`
	Parent      string        `json:"parent,omitempty"`
	Explanation string        `json:"explanation,omitempty"`
	Verdict     Verdict       `json:"verdict"`
	DuplicateOf string        `json:"duplicate_of,omitempty"`
	Speedup     float64       `json:"speedup,omitempty"`
	CI          *[2]float64   `json:"ci,omitempty"`
	Pairs       int           `json:"pairs,omitempty"`
	Benchmarks  []BenchResult `json:"benchmarks,omitempty"`
	// FasterOn names the benchmarks significantly faster by at least the
	// threshold, and SlowerOn those significantly slower beyond it. Each is
	// judged on its interval, corrected for the number of benchmarks. Any
	// SlowerOn fails the regression gate.
	FasterOn []string `json:"faster_on,omitempty"`
	SlowerOn []string `json:"slower_on,omitempty"`
	// Qualifier refines the verdict: QualifierFasterOnSome on a
	// not-faster (or winner) candidate that is faster on the benchmarks
	// of FasterOn and significantly slower on none.
	Qualifier   string   `json:"qualifier,omitempty"`
	Failure     *Failure `json:"failure"`
	TestsPassed int      `json:"tests_passed,omitempty"`
	TestsTotal  int      `json:"tests_total,omitempty"`
	Files       []string `json:"files,omitempty"` // paths the candidate changes
	Note        string   `json:"note,omitempty"`  // why the verdict is what it is, when the numbers don't say
	// Unsettled is set when measuring stopped (pairs, budget or deadline
	// spent) before the verdict was settled: more pairs could change it.
	Unsettled bool `json:"unsettled,omitempty"`
	// Live is what the candidate is doing while its job runs, or was
	// doing when the job stopped; nil once it has its final verdict.
	Live    *Live   `json:"live,omitempty"`
	Seconds float64 `json:"seconds,omitempty"`
	// TestSeconds is the candidate's time in its phase-1 slot: staging and
	// the test command. BenchSeconds is its time in phase 2: building,
	// calibrating and measuring pairs. Both are 0 for a phase it did not reach.
	TestSeconds  float64 `json:"test_seconds,omitempty"`
	BenchSeconds float64 `json:"bench_seconds,omitempty"`
	// WaitSeconds is the time the candidate's benchmark waited for the
	// machine, held by another job or process: not part of Seconds, nor
	// of the benchmark budget.
	WaitSeconds float64 `json:"wait_seconds,omitempty"`

	// Hacks is what the hack check saw when the candidate is suspect: a
	// speedup that comes from not doing the work.
	Hacks []Hack `json:"hacks,omitempty"`
	// Holdout is how it did on the shown and held-out benchmarks, in a job
	// that held some out (Options.Holdout).
	Holdout *HoldoutResult `json:"holdout,omitempty"`

	// TestEdits is what it changes in the Go test files that judge it.
	TestEdits *TestEdits `json:"test_edits,omitempty"`
	// Interference is how much other work competed with its benchmark samples.
	Interference *Interference `json:"interference,omitempty"`

	// ReusedFrom names the earlier job whose outcome of the same tests on
	// the same tree, base and environment this candidate reuses instead of
	// running its tests again (the result cache). ReusedPairs of its Pairs
	// were measured by the jobs ReusedPairsFrom, on byte-identical test
	// binaries of both sides, and reused.
	ReusedFrom      string   `json:"reused_from,omitempty"`
	ReusedPairs     int      `json:"reused_pairs,omitempty"`
	ReusedPairsFrom []string `json:"reused_pairs_from,omitempty"`
}

// Report is the result of one job. Its JSON form is the contract in DESIGN.md:
// fields may be added, never renamed.
type Report struct {
	Job        string            `json:"job"`
	Repo       string            `json:"repo"`
	Base       string            `json:"base"`
	Parallel   int               `json:"parallel"`
	Winner     *string           `json:"winner"`
	MinSpeedup float64           `json:"min_speedup"`
	Candidates []CandidateResult `json:"candidates"`
	Profile    *profiler.Summary `json:"profile,omitempty"` // the winner's profile
	// ProfileNote says why a winner has no profile when that is by design,
	// such as a winner measured by a --bench command with no --profile.
	ProfileNote string         `json:"profile_note,omitempty"`
	Noise       *Noise         `json:"noise,omitempty"`
	Warnings    []string       `json:"warnings,omitempty"`
	Sandbox     *SandboxReport `json:"sandbox,omitempty"`
	State       string         `json:"state,omitempty"` // finished, interrupted, failed
	Started     time.Time      `json:"started"`
	Seconds     float64        `json:"seconds"`
	Phases      *Phases        `json:"phases,omitempty"`
}

// The phases of a job, as Phases, events and -v name them.
const (
	PhaseResolve     = "resolve"
	PhaseBehavior    = "behavior"
	PhaseContributed = "contributed-tests" // the tests candidates add, run at base and on every candidate that passed
	PhaseBenchmark   = "benchmark"
	PhaseProfile     = "profile"
)

// Phases is the wall time of each phase of a job, in seconds; a phase that
// did not run is 0. Resolve computes the candidates' content ids. Behavior
// runs from the start of base's tests to the end of the last candidate's.
// The two overlap, so the phases may add up to more than the job's Seconds.
// Contributed is the tests candidates add, run at base and on every
// candidate that passed; it is left out when no candidate adds a test.
type Phases struct {
	Resolve     float64 `json:"resolve"`
	Behavior    float64 `json:"behavior"`
	Contributed float64 `json:"contributed_tests,omitempty"`
	Benchmark   float64 `json:"benchmark"`
	Profile     float64 `json:"profile"`
}

// Noise is the result of an A/A check of base against itself.
type Noise struct {
	Floor float64 `json:"floor"` // half-width of the A/A interval, as a fraction
	Pairs int     `json:"pairs"`
}

// PastBenchmark is one candidate's benchmark in an earlier job like this
// one (Event.History): the candidate's name and the pairs it measured.
type PastBenchmark struct {
	Candidate string `json:"candidate"`
	Pairs     int    `json:"pairs"`
}

// EventKind names what happened.
type EventKind string

// The event kinds that a job emits, in roughly the order they happen.
const (
	EventJobStart EventKind = "job-start" // Total is the number of candidates
	EventBaseline EventKind = "baseline"  // baseline tests finished; Message summarises, AtBase is how long they ran
	EventPhase    EventKind = "phase"     // Phase changed: behavior, benchmark, profile
	EventStart    EventKind = "start"     // Candidate started a phase
	EventTested   EventKind = "tested"    // Candidate passed its tests; its benchmark is to come; Result is set
	EventDone     EventKind = "done"      // Candidate has its final verdict; Result is set
	EventScope    EventKind = "scope"     // Candidate's benchmarks are chosen: Message says which will run, why, and how long they should take; with no Candidate, as phase 2 starts, how they are chosen for every one
	EventSample   EventKind = "sample"    // one benchmark pair measured (progress only)
	EventWarning  EventKind = "warning"   // Message
	EventWaiting  EventKind = "waiting"   // Message says who holds the machine; "" when the wait is over (Candidate set: it took the machine)
	EventStuck    EventKind = "stuck"     // Candidate's test Message has run far past its time at base (Since, AtBase); "" when it ended
	EventJobDone  EventKind = "job-done"  // Report is complete
)

// Event is what workers send to the one goroutine that owns the terminal.
// Workers never print.
type Event struct {
	Kind      EventKind
	Time      time.Time
	Phase     string
	Candidate string
	Index     int // candidate's position in input order
	Done      int // candidates with a final verdict
	Total     int
	Message   string
	Result    *CandidateResult
	// BaseSample is, for EventSample, how long the pair's base sample took.
	BaseSample time.Duration
	// After is, for EventSample, how long the benchmark is to take after
	// its last pair (the hack check), as its budget counts it; 0: nothing.
	After time.Duration
	// Pair is, for EventSample, the pair's number in its benchmark. Pairs
	// reused from an earlier job count, so watch refining its quick look
	// starts past 1. 0: not said (count the events).
	Pair int
	// Forecast is, for EventSample, the pairs the benchmark is on course
	// to take (stats.Sequential.Forecast), reused ones included; 0: not yet
	// known.
	Forecast int
	// History is, for EventJobStart, the pairs that the benchmarks of the
	// latest earlier jobs like this one took, by candidate
	// (store.DB.BenchHistory). The ETA expects as much of the benchmarks
	// to come before this job has measured any. Empty: none.
	History []PastBenchmark
	// Slots is, for EventJobStart, how many candidates the job tests at
	// once: a reader that did not start the job (a daemon's client) learns
	// it here.
	Slots int
	// MinSpeedup is, for EventJobStart, the job's --min-speedup: progress
	// lines print an interval's bounds with the digits that show which
	// side of 1+MinSpeedup they fall, as the report does.
	MinSpeedup float64
	// Since and AtBase are, for EventStuck, when the test started and how
	// long it took at base. AtBase is, for EventBaseline, how long base's
	// tests ran; for a cached outcome, how long the cached run took.
	Since  time.Time
	AtBase time.Duration
}
