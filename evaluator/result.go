package evaluator

import "github.com/optimizer-dev/optimizer/result"

// The result types are the engine's vocabulary; they live in package
// result so that what renders or streams a job need not import the engine.
type (
	Verdict         = result.Verdict
	FailureKind     = result.FailureKind
	Failure         = result.Failure
	BenchResult     = result.BenchResult
	CandidateResult = result.CandidateResult
	Report          = result.Report
	Phases          = result.Phases
	Noise           = result.Noise
	PastBenchmark   = result.PastBenchmark
	EventKind       = result.EventKind
	Event           = result.Event
	TestEdits       = result.TestEdits
	Interference    = result.Interference
	SandboxReport   = result.SandboxReport
	Live            = result.Live
)

// The verdicts, failure kinds, phases and event kinds of package result.
const (
	VerdictPending   = result.VerdictPending
	VerdictWinner    = result.VerdictWinner
	VerdictFaster    = result.VerdictFaster
	VerdictNotFaster = result.VerdictNotFaster
	VerdictSlower    = result.VerdictSlower
	VerdictMixed     = result.VerdictMixed
	VerdictPassed    = result.VerdictPassed
	VerdictFailed    = result.VerdictFailed
	VerdictDuplicate = result.VerdictDuplicate
	VerdictOverfit   = result.VerdictOverfit
	VerdictSuspect   = result.VerdictSuspect

	VerdictLayoutSensitive = result.VerdictLayoutSensitive

	QualifierFasterOnSome = result.QualifierFasterOnSome

	FailApply   = result.FailApply
	FailBuild   = result.FailBuild
	FailTest    = result.FailTest
	FailTimeout = result.FailTimeout
	FailError   = result.FailError

	PhaseResolve     = result.PhaseResolve
	PhaseBehavior    = result.PhaseBehavior
	PhaseContributed = result.PhaseContributed
	PhaseBenchmark   = result.PhaseBenchmark
	PhaseProfile     = result.PhaseProfile

	EventJobStart = result.EventJobStart
	EventBaseline = result.EventBaseline
	EventPhase    = result.EventPhase
	EventStart    = result.EventStart
	EventTested   = result.EventTested
	EventDone     = result.EventDone
	EventScope    = result.EventScope
	EventSample   = result.EventSample
	EventWarning  = result.EventWarning
	EventWaiting  = result.EventWaiting
	EventStuck    = result.EventStuck
	EventJobDone  = result.EventJobDone
)
