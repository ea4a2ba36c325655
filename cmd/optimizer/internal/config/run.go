package config

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/spf13/pflag"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/evaluator/benchformat"
	"github.com/optimizer-dev/optimizer/evaluator/gobench"
	"github.com/optimizer-dev/optimizer/jobspec"
	"github.com/optimizer-dev/optimizer/shard"
)

// The report formats.
const (
	FormatText     = "text"
	FormatJSON     = "json"
	FormatMarkdown = "markdown"
)

// Run is the settings of optimizer run, which watch, ci, optimize, bench
// and demo share. They are its flags (Register), which optimizer.toml sets
// too (Merge; a flag given on the command line wins). A job's settings
// are its spec (Spec), which the store records.
type Run struct {
	Repo          string
	Base          string
	Candidates    []string
	CandidateRefs []string
	Parallel      Parallel
	Test          string
	TestReports   []string
	Bench         string
	BenchFormat   string
	BenchReports  []string
	Timeout       time.Duration
	MinSpeedup    float64 // percent
	Format        string
	DB            string
	KeepSlots     bool
	ParanoidReset bool
	BenchFilter   string
	BenchArgs     []string
	BuildFlags    []string
	Tags          string
	MinPairs      int
	MaxPairs      int
	BenchBudget   time.Duration
	Metric        string
	NoiseCheck    bool
	NoPin         bool
	ProfileCmd    string
	NoProfile     bool
	FailOnRegr    bool
	FailOnFailed  bool
	All           bool
	SlotMemory    string
	Sandbox       string
	SandboxNet    bool
	SandboxBind   []string
	Setup         string
	CopyIgnored   []string
	TrustTests    bool
	NoCache       bool
	Env           []string // names a daemon's job gets from this environment, besides api.DefaultEnv
	Verbose       bool
	Socket        string // the daemon's socket
	NoDaemon      bool   // run in-process even when a daemon answers

	// CopyFiles are the files CopyIgnored matched in the repository, which
	// the command finds.
	CopyFiles []string
	// Shard is --shard, resolved (optimizer run only).
	Shard shard.Spec
	// Kind is recorded in the store: run, watch, ci, optimize or demo. Not a flag.
	Kind string
	// ParallelFrom names where -j came from when it was not the command
	// line: optimizer.toml, or "" for the flag or the default.
	ParallelFrom string
}

// Defaults are the values before flags and optimizer.toml.
func Defaults() Run {
	return Run{
		Repo:        ".",
		Base:        "HEAD",
		Parallel:    ParallelAuto,
		Timeout:     evaluator.DefaultTimeout,
		MinSpeedup:  jobspec.DefaultMinSpeedup,
		Format:      FormatText,
		MinPairs:    evaluator.DefaultMinPairs,
		MaxPairs:    evaluator.DefaultMaxPairs,
		BenchBudget: evaluator.DefaultBudget,
		Metric:      string(evaluator.MetricWall),
		Sandbox:     string(evaluator.SandboxAuto),
		Kind:        "run",
	}
}

// Register defines the run flags on fs, bound to o.
func (o *Run) Register(fs *pflag.FlagSet) {
	fs.StringVar(&o.Repo, "repo", o.Repo, "any directory in the git repository to evaluate")
	fs.StringVar(&o.Base, "base", o.Base, "the revision candidates are compared against")
	fs.StringArrayVar(&o.Candidates, "candidates", o.Candidates, "a .patch/.diff file, a .jsonl file, or a directory of them and of NAME/ file trees (repeatable)")
	fs.StringArrayVar(&o.CandidateRefs, "candidate-ref", o.CandidateRefs, "a git ref whose diff from base is a candidate, named by the ref (a commit hash by its first 12 characters) (repeatable)")
	fs.VarP(&o.Parallel, "parallel-candidates", "j", "slots: candidates tested at once; 0 means one per candidate; auto is CPUs-1 (at least 2 on 2+ CPUs for a test command other than go test), lowered when memory is short")
	fs.StringVar(&o.Test, "test", o.Test, "test command, run with sh -c in each slot, with -count=1 added to GOFLAGS so that go test never answers from its cache (default: go test -json ./... in a Go module)")
	fs.StringArrayVar(&o.TestReports, "test-report", o.TestReports, "JUnit XML report the test command writes, relative to the repository root (a glob is fine): its tests are compared with base's one by one (default: the path the command's flags name, for pytest --junitxml, node --test-reporter=junit, vitest, jest-junit, ctest, nextest, mvn and gradle) (repeatable)")
	fs.StringVar(&o.Bench, "bench", o.Bench, `benchmark command, run with sh -c (default: the Go benchmarks of the touched packages; "none" disables)`)
	fs.StringVar(&o.BenchFormat, "bench-format", o.BenchFormat, "format of the --bench command's results: go, pytest-benchmark, google-benchmark, criterion, vitest, tinybench, hyperfine or jmh (default: detected from what it writes; none found: its run time is judged)")
	fs.StringArrayVar(&o.BenchReports, "bench-report", o.BenchReports, "file the --bench command writes its results to, relative to the repository root (a glob is fine), read after each run instead of its stdout (default: the file its flags name: --benchmark-json, --benchmark_out, --export-json, --outputJson, -rff) (repeatable)")
	fs.DurationVar(&o.Timeout, "timeout", o.Timeout, "limit on one run of the test command")
	fs.Var(Percent{&o.MinSpeedup}, "min-speedup", "percent, such as 5 or 5%: faster means the interval's lower bound clears 1 + this")
	fs.StringVar(&o.Format, "format", o.Format, "report format: text, json or markdown")
	fs.StringVar(&o.DB, "db", o.DB, "store file (default <git-common-dir>/optimizer/optimizer.db)")
	fs.BoolVar(&o.KeepSlots, "keep-slots", o.KeepSlots, "keep the slots warm for the next job instead of removing them")
	fs.BoolVar(&o.ParanoidReset, "paranoid-reset", o.ParanoidReset, "prove every slot clean at every reset (a walk of the tree and a full git status), not only before base's tests and benchmarks")
	fs.StringVar(&o.BenchFilter, "bench-filter", o.BenchFilter, "regexp, slash by slash as go test -bench: only the benchmarks it matches, sub-benchmarks by their full names, are run and judged")
	fs.StringArrayVar(&o.BenchArgs, "bench-arg", o.BenchArgs, "extra argument to Go benchmark binaries (repeatable)")
	fs.StringArrayVar(&o.BuildFlags, "build-flags", o.BuildFlags, "extra go test -c flags, split on spaces (repeatable)")
	fs.StringVar(&o.Tags, "tags", o.Tags, "build tags, comma-separated, for benchmark binaries and for tests (as -tags in GOFLAGS, unless GOFLAGS sets -tags)")
	fs.IntVar(&o.MinPairs, "min-pairs", o.MinPairs, "benchmark pairs measured before the first look")
	fs.IntVar(&o.MaxPairs, "max-pairs", o.MaxPairs, "most benchmark pairs per candidate")
	fs.DurationVar(&o.BenchBudget, "bench-budget", o.BenchBudget, "most time spent benchmarking one candidate, counted from when it has the machine to itself")
	fs.StringVar(&o.Metric, "metric", o.Metric, "the metric the verdict rests on: wall or cpu (time; for a --bench command that prints no benchmark lines, its wall or CPU time), rss (a --bench command's peak resident memory per sample), allocs or bytes (Go's allocs/op or B/op); the others are reported beside it with intervals")
	fs.BoolVar(&o.NoiseCheck, "noise-check", o.NoiseCheck, "measure base against itself first and report the noise floor")
	fs.BoolVar(&o.NoPin, "no-pin", o.NoPin, "do not pin benchmark processes to one CPU")
	fs.StringVar(&o.ProfileCmd, "profile", o.ProfileCmd, "profiling command run on the winner's slot instead of Go CPU profiles")
	fs.BoolVar(&o.NoProfile, "no-profile", o.NoProfile, "do not profile the winner")
	fs.BoolVar(&o.FailOnRegr, "fail-on-regression", o.FailOnRegr, "exit 3 when a candidate is slower or mixed, or any of its benchmarks is significantly slower beyond --min-speedup")
	fs.BoolVar(&o.FailOnFailed, "fail-on-failed", o.FailOnFailed, "exit 4 when every candidate failed (none applies, builds and passes its tests)")
	fs.BoolVar(&o.All, "all", o.All, "benchmark every package, not only the benchmarks that execute a function the candidate changes")
	fs.StringVar(&o.SlotMemory, "slot-memory", o.SlotMemory, `cap each process of a test or bench command at this much memory, such as 4G (prlimit --as); "none" for no cap (default: half of physical memory, none when a command says -race or runs node, npx or another JavaScript tool)`)
	fs.StringVar(&o.Sandbox, "sandbox", o.Sandbox, "run every test, bench and profile process in a bwrap sandbox: auto (when bwrap works), on (refuse without it) or off")
	fs.BoolVar(&o.SandboxNet, "sandbox-net", o.SandboxNet, "let sandboxed processes use the network")
	fs.StringArrayVar(&o.SandboxBind, "sandbox-bind", o.SandboxBind, "show this path read-only in the sandbox, such as an interpreter under $HOME; the job then runs in this process, not on a daemon (repeatable)")
	fs.BoolVar(&o.TrustTests, "trust-candidate-tests", o.TrustTests, "judge and measure each candidate with its own versions of the test files it changes: _test.go, and other languages' by name (test_*.py, *.test.js, tests/...; docs/languages.md) (default: base's, and the change is flagged)")
	fs.BoolVar(&o.NoCache, "no-cache", o.NoCache, "reuse nothing from earlier jobs in the store: run every candidate's and base's tests and measure every benchmark pair again (by default a candidate whose tree, base, test command and environment match an earlier job's reuses its test outcome, and byte-identical benchmark binaries reuse their pairs)")
	fs.StringArrayVar(&o.Env, "env", o.Env, "an environment variable that a job on a daemon gets from this shell, besides PATH, GOFLAGS and the others it gets by default (repeatable; NAME or a prefix such as MYAPP_*)")
	fs.BoolVarP(&o.Verbose, "verbose", "v", o.Verbose, "log what happens to stderr, one line per event: slots made, adopted and reset; phases; each candidate's staging, tests and benchmark pairs, with times; the baseline run or cached; the profile")
	fs.StringVar(&o.Setup, "setup", o.Setup, "command run with sh -c in each slot before its tests or benchmarks, every time the slot is lent (a failure stops the job)")
	fs.StringArrayVar(&o.CopyIgnored, "copy-ignored", o.CopyIgnored, "ignored files of the working tree to copy into every slot: a path, a directory, or a glob such as '*.env' (repeatable)")
}

// Validate checks values that flags and optimizer.toml cannot check by type.
func (o *Run) Validate() error {
	switch {
	case !slices.Contains([]string{FormatText, FormatJSON, FormatMarkdown}, o.Format):
		return fmt.Errorf("--format %q: want text, json or markdown", o.Format)
	case !evaluator.ValidMetric(evaluator.Metric(o.Metric)):
		return fmt.Errorf("--metric %q: want one of %s", o.Metric, evaluator.MetricList())
	case o.Timeout <= 0:
		return fmt.Errorf("--timeout %v: must be positive", o.Timeout)
	case o.BenchBudget <= 0:
		return fmt.Errorf("--bench-budget %v: must be positive", o.BenchBudget)
	case !(o.MinSpeedup >= 0 && o.MinSpeedup < 1000): // NaN too
		return fmt.Errorf("--min-speedup %v: want a percentage from 0 to below 1000, such as 5 or 5%%", o.MinSpeedup)
	case o.MinPairs < 2:
		return fmt.Errorf("--min-pairs %d: need at least 2", o.MinPairs)
	case o.MaxPairs < o.MinPairs:
		return fmt.Errorf("--max-pairs %d: below --min-pairs %d", o.MaxPairs, o.MinPairs)
	case !slices.Contains([]string{string(evaluator.SandboxAuto), string(evaluator.SandboxOn), string(evaluator.SandboxOff)}, o.Sandbox):
		return fmt.Errorf("--sandbox %q: want auto, on or off", o.Sandbox)
	case o.NoProfile && o.ProfileCmd != "":
		return errors.New("--profile and --no-profile contradict each other")
	}
	if o.BenchFormat != "" && !benchformat.Valid(benchformat.Format(o.BenchFormat)) {
		return fmt.Errorf("--bench-format %q: want one of go, pytest-benchmark, google-benchmark, criterion, vitest, tinybench, hyperfine, jmh", o.BenchFormat)
	}
	for _, p := range o.BenchReports {
		if err := evaluator.CheckReportPath(p); err != nil {
			return fmt.Errorf("--bench-report: %w", err)
		}
	}
	for _, p := range o.TestReports {
		if err := evaluator.CheckReportPath(p); err != nil {
			return fmt.Errorf("--test-report: %w", err)
		}
	}
	if o.BenchFilter != "" {
		if _, err := gobench.NewFilter(o.BenchFilter); err != nil {
			return fmt.Errorf("--bench-filter: %w", err)
		}
	}
	if _, err := ParseSize(o.SlotMemory); err != nil && o.SlotMemory != "none" {
		return fmt.Errorf("--slot-memory %q: %w", o.SlotMemory, err)
	}
	return nil
}
