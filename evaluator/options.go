package evaluator

import (
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/evaluator/measure"
	"github.com/optimizer-dev/optimizer/shard"
)

// Defaults for Options; DefaultMinSpeedup is in spec.go.
const (
	DefaultTimeout  = 10 * time.Minute
	DefaultMinPairs = 6
	DefaultMaxPairs = 30
	DefaultBudget   = 5 * time.Minute
	DefaultAlpha    = 0.05
)

// Metric selects the metric the verdict rests on. By default it is time:
// Go's sec/op, the time a bench command prints, or else its wall time. The
// others are reported beside it, with intervals (stats.Beside).
type Metric string

// The metrics.
const (
	MetricWall Metric = "wall" // time; a bench command's wall time when it prints none
	MetricCPU  Metric = "cpu"  // time; a bench command's user+sys time when it prints none
	// MetricRSS judges a bench command's peak resident memory per sample
	// (proc.Result.MaxRSS), in unit "B"; its wall time goes beside.
	MetricRSS Metric = "rss"
	// MetricAllocs and MetricBytes judge Go's allocs/op and B/op, means
	// over the same iteration count on both sides; time goes beside.
	MetricAllocs Metric = "allocs"
	MetricBytes  Metric = "bytes"
)

// Metrics lists the valid metrics, for messages.
var Metrics = []Metric{MetricWall, MetricCPU, MetricRSS, MetricAllocs, MetricBytes}

// MetricList is Metrics for a message: "wall, cpu, rss, allocs or bytes".
func MetricList() string {
	var names []string
	for _, m := range Metrics {
		names = append(names, string(m))
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// ValidMetric reports whether m is one of Metrics.
func ValidMetric(m Metric) bool { return slices.Contains(Metrics, m) }

// JudgedUnit reports whether unit is the one metric m judges.
func (m Metric) JudgedUnit(unit string) bool {
	switch m {
	case MetricRSS:
		return unit == PeakUnit
	case MetricAllocs:
		return unit == "allocs/op"
	case MetricBytes:
		return unit == "B/op"
	}
	return measure.TimedUnit(unit)
}

// PeakUnit is the unit of a sample's peak resident memory, in bytes.
const PeakUnit = measure.PeakUnit

// Options configure one job. Only cmd reads flags and files; it fills these.
type Options struct {
	// ID is the job's id in the store; "" makes one. The store must not
	// hold a job with this id.
	ID string
	// Env is KEY=VALUE set for the test, bench and setup commands, over the
	// optimizer's own environment. The daemon sets the client's PATH and
	// what else its policy lets through. nil adds nothing.
	Env        []string
	Kind       string // run, watch, demo: recorded in the store
	Repo       string // the user's repo root
	Base       string // the resolved base commit, 40 hex
	Candidates []candidate.Candidate
	// CPUs is the machine's CPU count; 0 is runtime.NumCPU(). When the
	// pool has more slots (Pool.Size), tests share CPUs, and a test that
	// times out is re-run alone before it fails.
	CPUs int

	Test    string        // shell line; "" detects (go test -json ./... for a Go module)
	Bench   string        // shell line; "" detects (Go benchmarks of touched packages); "none" disables
	Timeout time.Duration // one run of the test command

	// TestReports are paths or globs, relative to the repository root, of
	// the JUnit XML reports the test command writes; each run's are read
	// for per-test results. Empty: those the command's flags name
	// (junit.Detect), if any. Unused with go test -json.
	TestReports []string

	// BenchFormat is the format of the bench command's results
	// (benchformat.Format); "" detects it from what the command writes.
	// BenchReports are paths or globs, relative to the repository root,
	// of the files the command writes them to; empty: its stdout, unless
	// its flags name a file (benchformat.DetectReport).
	BenchFormat  string
	BenchReports []string
	// Setup is a shell line run in each slot whenever it is lent, before
	// tests or benchmarks: after CopyFiles are copied in. It fails the job,
	// not a candidate, when it exits non-zero.
	Setup string
	// CopyFiles lists files, relative to Repo and slash-separated, that are
	// copied from the user's working tree into each slot whenever it is
	// lent. They are ignored files the project needs, which a new worktree
	// lacks.
	CopyFiles []string

	// Shard, when set, makes this job one shard of a job spread over
	// machines. Only the candidates whose content ids fall in it are
	// tested, the base's tests included; the others stay pending. There is
	// no benchmark phase: shard.Merge combines the shards' stores, and
	// Bench measures on one host.
	Shard shard.Spec

	MinSpeedup float64 // fraction, 0.05 = 5%
	MinPairs   int
	MaxPairs   int
	Budget     time.Duration // phase-2 time per candidate
	Deadline   time.Time     // phase 2 stops measuring here, whatever Budget says; zero is none
	// Quick marks a first look that a later job refines (watch's quick
	// verdict): its Budget may stop a benchmark before any claim is
	// possible. Otherwise the budget stops none before the first look
	// that can claim (stats.Sequential.FirstClaim).
	Quick       bool
	Metric      Metric
	BenchFilter string   // regexp over benchmark names
	BenchArgs   []string // extra arguments to Go benchmark binaries
	BuildFlags  []string // extra go test -c flags, e.g. -tags=noasm
	Pin         bool     // pin benchmark processes to one CPU when there is more than one
	MemLimit    int64    // bytes of address space for each process of a test or bench command; 0: none
	NoiseCheck  bool

	// Sandbox says whether every test, benchmark and profile process, of
	// the base and of candidates alike, runs in a bwrap sandbox ("" is
	// auto). SandboxNet lets sandboxed processes use the network.
	Sandbox    SandboxMode
	SandboxNet bool
	// SandboxHide are further directories every sandbox hides: the
	// daemon's socket and state directories, when the daemon runs the job.
	SandboxHide []string
	// SandboxBind are further paths every sandbox shows read-only: what a
	// test or bench command needs from a hidden directory, such as an
	// interpreter under $HOME (--sandbox-bind).
	SandboxBind []string
	// SandboxBindNamed shows every sandbox, read-only, the paths that exist
	// on the host and that the test and bench commands, BenchArgs and
	// CopyFiles name (a data directory under $TMPDIR). The CLI sets it; a
	// daemon does not, so that no request can show a sandbox what it names.
	SandboxBindNamed bool
	All              bool // benchmark every package, unscoped: not only the benchmarks that execute a changed function

	// TrustCandidateTests judges and measures each candidate with its own
	// versions of the test files it changes (testedits.IsTestFile), instead of base's.
	TrustCandidateTests bool

	// NoCache reuses nothing from earlier jobs: no cached baseline tests,
	// candidate outcomes, calibrations or benchmark pairs (cache.go). What
	// the job learns is still kept for later jobs.
	NoCache bool

	// Holdout names the top-level benchmarks held out from the generators
	// whose candidates this job judges (optimize's --holdout). A candidate
	// faster on the others and not on these is overfit (holdout.go).
	Holdout []string

	Profile    bool   // profile the winner (Go)
	ProfileCmd string // shell line run on the winner's slot instead
	Artifacts  string // directory for profiles and other artifacts of this job

	Config []byte // the effective configuration as JSON, recorded in the store
	Logger *slog.Logger
	Events chan<- Event // nil discards; the receiver must keep draining until Run returns
}
