package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/spf13/pflag"

	"github.com/optimizer-dev/optimizer/client"
	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/evaluator/gobench"
	"github.com/optimizer-dev/optimizer/evaluator/shard"
)

// configFile is the name of the configuration file at the repo root.
const configFile = "optimizer.toml"

// The report formats.
const (
	formatText     = "text"
	formatJSON     = "json"
	formatMarkdown = "markdown"
)

// runOptions are the flags of optimizer run (and of the root command).
// optimizer.toml sets the same keys; a flag given on the command line wins.
type runOptions struct {
	Repo          string        `json:"repo"`
	Base          string        `json:"base"`
	Candidates    []string      `json:"candidates,omitempty"`
	CandidateRefs []string      `json:"candidate_refs,omitempty"`
	Parallel      parallelFlag  `json:"parallel_candidates"`
	Test          string        `json:"test,omitempty"`
	Bench         string        `json:"bench,omitempty"`
	Timeout       time.Duration `json:"timeout"`
	MinSpeedup    float64       `json:"min_speedup"` // percent
	Format        string        `json:"format"`
	DB            string        `json:"db,omitempty"`
	KeepSlots     bool          `json:"keep_slots,omitempty"`
	ParanoidReset bool          `json:"paranoid_reset,omitempty"`
	BenchFilter   string        `json:"bench_filter,omitempty"`
	BenchArgs     []string      `json:"bench_args,omitempty"`
	BuildFlags    []string      `json:"build_flags,omitempty"`
	Tags          string        `json:"tags,omitempty"`
	MinPairs      int           `json:"min_pairs"`
	MaxPairs      int           `json:"max_pairs"`
	BenchBudget   time.Duration `json:"bench_budget"`
	Metric        string        `json:"metric"`
	NoiseCheck    bool          `json:"noise_check,omitempty"`
	NoPin         bool          `json:"no_pin,omitempty"`
	ProfileCmd    string        `json:"profile,omitempty"`
	NoProfile     bool          `json:"no_profile,omitempty"`
	FailOnRegr    bool          `json:"fail_on_regression,omitempty"`
	All           bool          `json:"all,omitempty"`
	SlotMemory    string        `json:"slot_memory,omitempty"`
	Sandbox       string        `json:"sandbox"`
	SandboxNet    bool          `json:"sandbox_net,omitempty"`
	Setup         string        `json:"setup,omitempty"`
	CopyIgnored   []string      `json:"copy_ignored,omitempty"`
	TrustTests    bool          `json:"trust_candidate_tests,omitempty"`
	NoCache       bool          `json:"no_cache,omitempty"`
	Verbose       bool          `json:"-"`
	Socket        string        `json:"-"` // the daemon's socket
	NoDaemon      bool          `json:"-"` // run in-process even when a daemon answers

	// copyFiles are the files CopyIgnored matched, found by configure.
	copyFiles []string

	// Kind is recorded in the store: run, watch, ci, optimize or demo. Not a flag.
	Kind string `json:"-"`
	// ParallelFrom names where -j came from when it was not the command
	// line: optimizer.toml, or "" for the flag or the default.
	ParallelFrom string `json:"-"`

	shard shard.Spec // --shard, resolved (optimizer run only)
}

// defaultRunOptions are the values before flags and optimizer.toml.
func defaultRunOptions() runOptions {
	return runOptions{
		Repo:        ".",
		Base:        "HEAD",
		Parallel:    parallelAuto,
		Timeout:     evaluator.DefaultTimeout,
		MinSpeedup:  evaluator.DefaultMinSpeedup * 100,
		Format:      formatText,
		MinPairs:    evaluator.DefaultMinPairs,
		MaxPairs:    evaluator.DefaultMaxPairs,
		BenchBudget: evaluator.DefaultBudget,
		Metric:      string(evaluator.MetricWall),
		Sandbox:     string(evaluator.SandboxAuto),
		Kind:        "run",
	}
}

// register defines the run flags on fs, bound to o.
func (o *runOptions) register(fs *pflag.FlagSet) {
	fs.StringVar(&o.Repo, "repo", o.Repo, "any directory in the git repository to evaluate")
	fs.StringVar(&o.Base, "base", o.Base, "the revision candidates are compared against")
	fs.StringArrayVar(&o.Candidates, "candidates", o.Candidates, "a .patch/.diff file, a .jsonl file, or a directory of them and of NAME/ file trees (repeatable)")
	fs.StringArrayVar(&o.CandidateRefs, "candidate-ref", o.CandidateRefs, "a git ref whose diff from base is a candidate, named by the ref (a commit hash by its first 12 characters) (repeatable)")
	fs.VarP(&o.Parallel, "parallel-candidates", "j", "slots: candidates tested at once; 0 means one per candidate; auto is CPUs-1 (at least 2 on 2+ CPUs for a test command other than go test), lowered when memory is short")
	fs.StringVar(&o.Test, "test", o.Test, "test command, run with sh -c in each slot, with -count=1 added to GOFLAGS so that go test never answers from its cache (default: go test -json ./... in a Go module)")
	fs.StringVar(&o.Bench, "bench", o.Bench, `benchmark command, run with sh -c (default: the Go benchmarks of the touched packages; "none" disables)`)
	fs.DurationVar(&o.Timeout, "timeout", o.Timeout, "limit on one run of the test command")
	fs.Float64Var(&o.MinSpeedup, "min-speedup", o.MinSpeedup, "percent: faster means the interval's lower bound clears 1 + this")
	fs.StringVar(&o.Format, "format", o.Format, "report format: text, json or markdown")
	fs.StringVar(&o.DB, "db", o.DB, "store file (default <git-common-dir>/optimizer/optimizer.db)")
	fs.BoolVar(&o.KeepSlots, "keep-slots", o.KeepSlots, "keep the slots warm for the next job instead of removing them")
	fs.BoolVar(&o.ParanoidReset, "paranoid-reset", o.ParanoidReset, "prove every slot clean at every reset (a walk of the tree and a full git status), not only before base's tests and benchmarks")
	fs.StringVar(&o.BenchFilter, "bench-filter", o.BenchFilter, "regexp, slash by slash as go test -bench: only the benchmarks it matches, sub-benchmarks by their full names, are run and judged")
	fs.StringArrayVar(&o.BenchArgs, "bench-arg", o.BenchArgs, "extra argument to Go benchmark binaries (repeatable)")
	fs.StringArrayVar(&o.BuildFlags, "build-flags", o.BuildFlags, "extra go test -c flags, split on spaces (repeatable)")
	fs.StringVar(&o.Tags, "tags", o.Tags, "build tags for benchmark binaries, comma-separated")
	fs.IntVar(&o.MinPairs, "min-pairs", o.MinPairs, "benchmark pairs measured before the first look")
	fs.IntVar(&o.MaxPairs, "max-pairs", o.MaxPairs, "most benchmark pairs per candidate")
	fs.DurationVar(&o.BenchBudget, "bench-budget", o.BenchBudget, "most time spent benchmarking one candidate, counted from when it has the machine to itself")
	fs.StringVar(&o.Metric, "metric", o.Metric, "what a --bench command's samples measure when it prints no benchmark lines: wall or cpu")
	fs.BoolVar(&o.NoiseCheck, "noise-check", o.NoiseCheck, "measure base against itself first and report the noise floor")
	fs.BoolVar(&o.NoPin, "no-pin", o.NoPin, "do not pin benchmark processes to one CPU")
	fs.StringVar(&o.ProfileCmd, "profile", o.ProfileCmd, "profiling command run on the winner's slot instead of Go CPU profiles")
	fs.BoolVar(&o.NoProfile, "no-profile", o.NoProfile, "do not profile the winner")
	fs.BoolVar(&o.FailOnRegr, "fail-on-regression", o.FailOnRegr, "exit 3 when a candidate is slower or mixed, or any of its benchmarks is significantly slower beyond --min-speedup")
	fs.BoolVar(&o.All, "all", o.All, "benchmark every package, not only those the candidate touches or that import them")
	fs.StringVar(&o.SlotMemory, "slot-memory", o.SlotMemory, `cap each process of a test or bench command at this much memory, such as 4G (prlimit --as); "none" for no cap (default: half of physical memory, none when a command says -race)`)
	fs.StringVar(&o.Sandbox, "sandbox", o.Sandbox, "run every test, bench and profile process in a bwrap sandbox: auto (when bwrap works), on (refuse without it) or off")
	fs.BoolVar(&o.SandboxNet, "sandbox-net", o.SandboxNet, "let sandboxed processes use the network")
	fs.BoolVar(&o.TrustTests, "trust-candidate-tests", o.TrustTests, "judge and measure each candidate with its own versions of the _test.go files it changes (default: base's, and the change is flagged)")
	fs.BoolVar(&o.NoCache, "no-cache", o.NoCache, "reuse nothing from earlier jobs in the store: run every candidate's and base's tests and measure every benchmark pair again (by default a candidate whose tree, base, test command and environment match an earlier job's reuses its test outcome, and byte-identical benchmark binaries reuse their pairs)")
	fs.BoolVarP(&o.Verbose, "verbose", "v", o.Verbose, "log what happens to stderr, one line per event: slots made, adopted and reset; phases; each candidate's staging, tests and benchmark pairs, with times; the baseline run or cached; the profile")
	fs.StringVar(&o.Setup, "setup", o.Setup, "command run with sh -c in each slot before its tests or benchmarks, every time the slot is lent (a failure stops the job)")
	fs.StringArrayVar(&o.CopyIgnored, "copy-ignored", o.CopyIgnored, "ignored files of the working tree to copy into every slot: a path, a directory, or a glob such as '*.env' (repeatable)")
}

// registerDaemon adds the flags of the commands that may go through a daemon.
func (o *runOptions) registerDaemon(fs *pflag.FlagSet) {
	fs.StringVar(&o.Socket, "socket", o.Socket, "the daemon's socket (default $OPTIMIZER_SOCKET, else "+client.DefaultSocket()+")")
	fs.BoolVar(&o.NoDaemon, "no-daemon", o.NoDaemon, "run in this process even when a daemon answers on the socket")
}

// validate checks values that flags and optimizer.toml cannot check by type.
func (o *runOptions) validate() error {
	switch {
	case !slices.Contains([]string{formatText, formatJSON, formatMarkdown}, o.Format):
		return usageErrorf("--format %q: want text, json or markdown", o.Format)
	case o.Metric != string(evaluator.MetricWall) && o.Metric != string(evaluator.MetricCPU):
		return usageErrorf("--metric %q: want wall or cpu", o.Metric)
	case o.Timeout <= 0:
		return usageErrorf("--timeout %v: must be positive", o.Timeout)
	case o.BenchBudget <= 0:
		return usageErrorf("--bench-budget %v: must be positive", o.BenchBudget)
	case o.MinSpeedup < 0 || o.MinSpeedup >= 1000:
		return usageErrorf("--min-speedup %v: want a percentage, such as 5", o.MinSpeedup)
	case o.MinPairs < 2:
		return usageErrorf("--min-pairs %d: need at least 2", o.MinPairs)
	case o.MaxPairs < o.MinPairs:
		return usageErrorf("--max-pairs %d: below --min-pairs %d", o.MaxPairs, o.MinPairs)
	case !slices.Contains([]string{string(evaluator.SandboxAuto), string(evaluator.SandboxOn), string(evaluator.SandboxOff)}, o.Sandbox):
		return usageErrorf("--sandbox %q: want auto, on or off", o.Sandbox)
	case o.NoProfile && o.ProfileCmd != "":
		return usageErrorf("--profile and --no-profile contradict each other")
	}
	if o.BenchFilter != "" {
		if _, err := gobench.NewFilter(o.BenchFilter); err != nil {
			return usageErrorf("--bench-filter: %w", err)
		}
	}
	if _, err := parseBytes(o.SlotMemory); err != nil && o.SlotMemory != "none" {
		return usageErrorf("--slot-memory %q: %w", o.SlotMemory, err)
	}
	return nil
}

// parseBytes reads a size such as 4G, 512M, 1.5GiB or 1048576 (bytes);
// K, M, G and T are powers of 1024. "" is 0.
func parseBytes(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	num := strings.TrimRight(strings.TrimSuffix(strings.TrimSuffix(strings.ToUpper(s), "B"), "I"), " ")
	mult := int64(1)
	if n := len(num); n > 0 {
		if i := strings.IndexByte("KMGT", num[n-1]); i >= 0 {
			mult = 1 << (10 * (i + 1))
			num = num[:n-1]
		}
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || f <= 0 || f*float64(mult) > math.MaxInt64/2 {
		return 0, errors.New("want a size such as 4G, 512M or a number of bytes")
	}
	return int64(f * float64(mult)), nil
}

// buildFlags returns the go test -c flags: --build-flags split on spaces,
// then --tags.
func (o *runOptions) buildFlags() []string {
	var out []string
	for _, f := range o.BuildFlags {
		out = append(out, strings.Fields(f)...)
	}
	if o.Tags != "" {
		out = append(out, "-tags="+o.Tags)
	}
	return out
}

// Keys of optimizer.toml that are not flags, or that name a path relative
// to the file.
var (
	configRefused = map[string]string{
		"repo":    "optimizer.toml is found through --repo",
		"verbose": "it is a flag only",
		"help":    "it is a flag only",
	}
	configPaths = map[string]bool{"candidates": true, "db": true}
)

// mergeConfig reads the optimizer.toml at path, if there is one, and sets
// every flag of flags it names that was not given on the command line. Keys are
// the long flag names; a repeatable flag takes an array. Relative paths are
// relative to the file. An unknown key or a bad value is a usage error.
func mergeConfig(flags *pflag.FlagSet, path string) error {
	var raw map[string]any
	if _, err := toml.DecodeFile(path, &raw); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return usageErrorf("read %s: %w", path, err)
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the first bad key is always the same one
	for _, key := range keys {
		if why, ok := configRefused[key]; ok {
			return usageErrorf("%s: key %q is not allowed: %s", path, key, why)
		}
		f := flags.Lookup(key)
		if f == nil {
			if near := closestFlag(flags, key); near != "" {
				return usageErrorf("%s: unknown key %q: did you mean %q? (keys are the long flag names of optimizer run)", path, key, near)
			}
			return usageErrorf("%s: unknown key %q (keys are the long flag names of optimizer run)", path, key)
		}
		if f.Changed {
			continue // the command line wins
		}
		values, err := configValues(raw[key])
		if err != nil {
			return usageErrorf("%s: key %q: %w", path, key, err)
		}
		if len(values) > 1 && !strings.HasSuffix(f.Value.Type(), "Array") {
			return usageErrorf("%s: key %q takes one value, not an array", path, key)
		}
		for _, v := range values {
			if configPaths[key] && v != "" && !filepath.IsAbs(v) {
				v = filepath.Join(filepath.Dir(path), v)
			}
			if err := flags.Set(key, v); err != nil {
				return usageErrorf("%s: key %q: %w", path, key, err)
			}
		}
	}
	return nil
}

// configValues turns a TOML value into the strings a flag's Set parses.
func configValues(v any) ([]string, error) {
	switch v := v.(type) {
	case string:
		return []string{v}, nil
	case bool:
		return []string{strconv.FormatBool(v)}, nil
	case int64:
		return []string{strconv.FormatInt(v, 10)}, nil
	case float64:
		return []string{strconv.FormatFloat(v, 'g', -1, 64)}, nil
	case []any:
		var out []string
		for _, e := range v {
			s, err := configValues(e)
			if err != nil {
				return nil, err
			}
			if len(s) != 1 {
				return nil, fmt.Errorf("arrays of arrays are not allowed")
			}
			out = append(out, s[0])
		}
		return out, nil
	default:
		return nil, fmt.Errorf("unsupported value %v (%T)", v, v)
	}
}
