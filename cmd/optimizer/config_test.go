package main

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/gitcmd"
)

func TestMergeConfig(t *testing.T) {
	for _, tt := range []struct {
		name  string
		toml  string // "" writes no file
		args  []string
		check func(t *testing.T, o runOptions, dir string)
	}{
		{
			name: "NoFile",
			check: func(t *testing.T, o runOptions, _ string) {
				if o.Parallel != parallelAuto || o.Timeout != 10*time.Minute || o.MinSpeedup != 5 {
					t.Errorf("defaults changed: %+v", o)
				}
			},
		},
		{
			name: "FileSetsValues",
			toml: `parallel-candidates = 3
timeout = "30s"
min-speedup = 2.5
no-pin = true
bench-arg = ["-benchdataDir", "x"]
build-flags = ["-race"]
tags = "noasm"
test = "make test"
`,
			check: func(t *testing.T, o runOptions, _ string) {
				if o.Parallel != 3 || o.Timeout != 30*time.Second || o.MinSpeedup != 2.5 || !o.NoPin || o.Test != "make test" {
					t.Errorf("got %+v", o)
				}
				if !slices.Equal(o.BenchArgs, []string{"-benchdataDir", "x"}) {
					t.Errorf("bench args = %q", o.BenchArgs)
				}
				if got := o.buildFlags(); !slices.Equal(got, []string{"-race", "-tags=noasm"}) {
					t.Errorf("build flags = %q", got)
				}
			},
		},
		{
			name: "NoCache",
			toml: "no-cache = true\n",
			check: func(t *testing.T, o runOptions, _ string) {
				if !o.NoCache {
					t.Error("no-cache = true in optimizer.toml did not turn the result cache off")
				}
				if opts := o.evaluatorOptions(gitcmd.Repo{Root: t.TempDir()}, "", 1, nil, nil); !opts.NoCache {
					t.Error("--no-cache did not reach the evaluator's options")
				}
			},
		},
		{
			name: "FlagsWin",
			toml: "parallel-candidates = 3\nbench-arg = [\"-a\"]\ncandidates = [\"c\"]\n",
			args: []string{"-j", "2", "--bench-arg", "-b", "--candidates", "mine"},
			check: func(t *testing.T, o runOptions, _ string) {
				if o.Parallel != 2 {
					t.Errorf("parallel = %v, want the flag's 2", o.Parallel)
				}
				if !slices.Equal(o.BenchArgs, []string{"-b"}) || !slices.Equal(o.Candidates, []string{"mine"}) {
					t.Errorf("arrays merged with the file: %q %q", o.BenchArgs, o.Candidates)
				}
			},
		},
		{
			name: "PathsRelativeToFile",
			toml: "candidates = [\"cands\", \"/abs/c.patch\"]\ndb = \"o.db\"\n",
			check: func(t *testing.T, o runOptions, dir string) {
				want := []string{filepath.Join(dir, "cands"), "/abs/c.patch"}
				if !slices.Equal(o.Candidates, want) || o.DB != filepath.Join(dir, "o.db") {
					t.Errorf("candidates %q db %q, want %q", o.Candidates, o.DB, want)
				}
			},
		},
		{
			name: "ZeroMeansOnePerCandidate",
			toml: "parallel-candidates = 0\n",
			check: func(t *testing.T, o runOptions, _ string) {
				if o.Parallel != 0 {
					t.Errorf("parallel = %v", o.Parallel)
				}
			},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, configFile)
			if tt.toml != "" {
				if err := os.WriteFile(path, []byte(tt.toml), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			o := defaultRunOptions()
			fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
			o.register(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			if err := mergeConfig(fs, path); err != nil {
				t.Fatal(err)
			}
			tt.check(t, o, dir)
		})
	}
}

func TestMergeConfig_Errors(t *testing.T) {
	for _, tt := range []struct {
		name string
		toml string
	}{
		{"UnknownKey", "paralel = 2\n"},
		{"RepoRefused", "repo = \"..\"\n"},
		{"BadValue", "parallel-candidates = -3\n"},
		{"BadDuration", "timeout = \"soon\"\n"},
		{"ArrayForOneValue", "test = [\"a\", \"b\"]\n"},
		{"Table", "[bench]\ncmd = \"x\"\n"},
		{"Malformed", "timeout = \n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), configFile)
			if err := os.WriteFile(path, []byte(tt.toml), 0o644); err != nil {
				t.Fatal(err)
			}
			o := defaultRunOptions()
			fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
			o.register(fs)
			err := mergeConfig(fs, path)
			var ue *usageError
			if !errors.As(err, &ue) {
				t.Fatalf("mergeConfig = %v, want a usage error", err)
			}
			if exitCode(err) != exitUsage {
				t.Errorf("exit code %d, want %d", exitCode(err), exitUsage)
			}
		})
	}
}

func TestRunOptions_Validate(t *testing.T) {
	for _, tt := range []struct {
		name string
		edit func(*runOptions)
		ok   bool
	}{
		{"Defaults", func(*runOptions) {}, true},
		{"Format", func(o *runOptions) { o.Format = "xml" }, false},
		{"Metric", func(o *runOptions) { o.Metric = "cycles" }, false},
		{"Timeout", func(o *runOptions) { o.Timeout = 0 }, false},
		{"Budget", func(o *runOptions) { o.BenchBudget = -time.Second }, false},
		{"MinSpeedup", func(o *runOptions) { o.MinSpeedup = -1 }, false},
		{"ZeroMinSpeedup", func(o *runOptions) { o.MinSpeedup = 0 }, true},
		{"MinPairs", func(o *runOptions) { o.MinPairs = 1 }, false},
		{"MaxBelowMin", func(o *runOptions) { o.MinPairs, o.MaxPairs = 10, 8 }, false},
		{"Filter", func(o *runOptions) { o.BenchFilter = "(" }, false},
		{"ProfileTwice", func(o *runOptions) { o.NoProfile, o.ProfileCmd = true, "perf record" }, false},
		{"Sandbox", func(o *runOptions) { o.Sandbox = "maybe" }, false},
		{"SandboxOff", func(o *runOptions) { o.Sandbox = "off" }, true},
		{"NoSlotMemory", func(o *runOptions) { o.SlotMemory = "none" }, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := defaultRunOptions()
			tt.edit(&o)
			err := o.validate()
			if tt.ok != (err == nil) {
				t.Fatalf("validate = %v, want ok %v", err, tt.ok)
			}
			if err != nil && exitCode(err) != exitUsage {
				t.Errorf("exit code %d, want %d", exitCode(err), exitUsage)
			}
		})
	}
}

func TestParseBytes(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
		bad  bool
	}{
		{"", 0, false}, {"1048576", 1 << 20, false}, {"4G", 4 << 30, false}, {"512M", 512 << 20, false},
		{"1.5GiB", 3 << 29, false}, {"2gb", 2 << 30, false}, {"64k", 64 << 10, false},
		{"lots", 0, true}, {"-1G", 0, true}, {"0", 0, true}, {"9999999T", 0, true},
	} {
		got, err := parseBytes(tt.in)
		if (err != nil) != tt.bad || got != tt.want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d, error %v", tt.in, got, err, tt.want, tt.bad)
		}
	}
}

// TestRunOptions_MemLimit: --slot-memory is a size, "none" is no cap, and
// without it the cap is evaluator.DefaultMemLimit (tested there).
func TestRunOptions_MemLimit(t *testing.T) {
	for _, tt := range []struct {
		name string
		o    runOptions
		want int64
	}{
		{"Default", runOptions{Test: "go test ./..."}, evaluator.DefaultMemLimit("go test ./...", "")},
		{"None", runOptions{SlotMemory: "none"}, 0},
		{"Given", runOptions{SlotMemory: "256M"}, 256 << 20},
		{"RaceGiven", runOptions{Test: "go test -race ./...", SlotMemory: "8G"}, 8 << 30},
	} {
		if got := tt.o.memLimit(); got != tt.want {
			t.Errorf("%s: memLimit %d, want %d", tt.name, got, tt.want)
		}
	}
}
