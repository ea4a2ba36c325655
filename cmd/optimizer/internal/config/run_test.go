package config

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/machine"
)

func TestMerge(t *testing.T) {
	for _, tt := range []struct {
		name  string
		toml  string // "" writes no file
		args  []string
		check func(t *testing.T, o Run, dir string)
	}{
		{
			name: "NoFile",
			check: func(t *testing.T, o Run, _ string) {
				if o.Parallel != ParallelAuto || o.Timeout != 10*time.Minute || o.MinSpeedup != 5 {
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
			check: func(t *testing.T, o Run, _ string) {
				if o.Parallel != 3 || o.Timeout != 30*time.Second || o.MinSpeedup != 2.5 || !o.NoPin || o.Test != "make test" {
					t.Errorf("got %+v", o)
				}
				if !slices.Equal(o.BenchArgs, []string{"-benchdataDir", "x"}) {
					t.Errorf("bench args = %q", o.BenchArgs)
				}
				if got := o.GoBuildFlags(); !slices.Equal(got, []string{"-race", "-tags=noasm"}) {
					t.Errorf("build flags = %q", got)
				}
			},
		},
		{
			name: "NoCache",
			toml: "no-cache = true\n",
			check: func(t *testing.T, o Run, _ string) {
				if !o.NoCache {
					t.Error("no-cache = true in optimizer.toml did not turn the result cache off")
				}
				if opts, err := o.Options(gitcmd.Repo{Root: t.TempDir()}, "", 1, "", nil, nil); err != nil || !opts.NoCache {
					t.Error("--no-cache did not reach the evaluator's options")
				}
			},
		},
		{
			name: "FlagsWin",
			toml: "parallel-candidates = 3\nbench-arg = [\"-a\"]\ncandidates = [\"c\"]\n",
			args: []string{"-j", "2", "--bench-arg", "-b", "--candidates", "mine"},
			check: func(t *testing.T, o Run, _ string) {
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
			check: func(t *testing.T, o Run, dir string) {
				want := []string{filepath.Join(dir, "cands"), "/abs/c.patch"}
				if !slices.Equal(o.Candidates, want) || o.DB != filepath.Join(dir, "o.db") {
					t.Errorf("candidates %q db %q, want %q", o.Candidates, o.DB, want)
				}
			},
		},
		{
			name: "ZeroMeansOnePerCandidate",
			toml: "parallel-candidates = 0\n",
			check: func(t *testing.T, o Run, _ string) {
				if o.Parallel != 0 {
					t.Errorf("parallel = %v", o.Parallel)
				}
			},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, File)
			if tt.toml != "" {
				if err := os.WriteFile(path, []byte(tt.toml), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			o := Defaults()
			fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
			o.Register(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			if err := Merge(fs, path); err != nil {
				t.Fatal(err)
			}
			tt.check(t, o, dir)
		})
	}
}

// TestMerge_Errors: a file that cannot be merged names the file and the
// key; an unknown key suggests the flag it most likely mistypes.
func TestMerge_Errors(t *testing.T) {
	for _, tt := range []struct {
		name string
		toml string
		want string
	}{
		{"UnknownKey", "paralel = 2\n", `unknown key "paralel": did you mean "parallel-candidates"?`},
		{"UnknownFar", "frobnicate = 2\n", `unknown key "frobnicate" (keys are`},
		{"RepoRefused", "repo = \"..\"\n", `key "repo" is not allowed: optimizer.toml is found through --repo`},
		{"BadValue", "parallel-candidates = -3\n", `key "parallel-candidates": invalid argument "-3"`},
		{"BadDuration", "timeout = \"soon\"\n", `key "timeout": `},
		{"ArrayForOneValue", "test = [\"a\", \"b\"]\n", `key "test" takes one value, not an array`},
		{"Table", "[bench]\ncmd = \"x\"\n", `key "bench": unsupported value`},
		{"Malformed", "timeout = \n", "read "},
		{"FirstKeySorted", "zzz = 1\naaa = 1\n", `unknown key "aaa"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), File)
			if err := os.WriteFile(path, []byte(tt.toml), 0o644); err != nil {
				t.Fatal(err)
			}
			o := Defaults()
			fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
			o.Register(fs)
			err := Merge(fs, path)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("Merge = %v, want an error naming %s and saying %q", err, path, tt.want)
			}
		})
	}
}

func TestRun_Validate(t *testing.T) {
	for _, tt := range []struct {
		name string
		edit func(*Run)
		ok   bool
	}{
		{"Defaults", func(*Run) {}, true},
		{"Format", func(o *Run) { o.Format = "xml" }, false},
		{"Metric", func(o *Run) { o.Metric = "cycles" }, false},
		{"Timeout", func(o *Run) { o.Timeout = 0 }, false},
		{"Budget", func(o *Run) { o.BenchBudget = -time.Second }, false},
		{"MinSpeedup", func(o *Run) { o.MinSpeedup = -1 }, false},
		{"ZeroMinSpeedup", func(o *Run) { o.MinSpeedup = 0 }, true},
		{"NaNMinSpeedup", func(o *Run) { o.MinSpeedup = math.NaN() }, false},
		{"MinPairs", func(o *Run) { o.MinPairs = 1 }, false},
		{"MaxBelowMin", func(o *Run) { o.MinPairs, o.MaxPairs = 10, 8 }, false},
		{"Filter", func(o *Run) { o.BenchFilter = "(" }, false},
		{"ProfileTwice", func(o *Run) { o.NoProfile, o.ProfileCmd = true, "perf record" }, false},
		{"Sandbox", func(o *Run) { o.Sandbox = "maybe" }, false},
		{"SandboxOff", func(o *Run) { o.Sandbox = "off" }, true},
		{"NoSlotMemory", func(o *Run) { o.SlotMemory = "none" }, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := Defaults()
			tt.edit(&o)
			err := o.Validate()
			if tt.ok != (err == nil) {
				t.Fatalf("Validate = %v, want ok %v", err, tt.ok)
			}
		})
	}
}

func TestParseSize(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
		bad  bool
	}{
		{"", 0, false}, {"1048576", 1 << 20, false}, {"4G", 4 << 30, false}, {"512M", 512 << 20, false},
		{"1.5GiB", 3 << 29, false}, {"2gb", 2 << 30, false}, {"64k", 64 << 10, false},
		{"lots", 0, true}, {"-1G", 0, true}, {"0", 0, true}, {"9999999T", 0, true},
	} {
		got, err := ParseSize(tt.in)
		if (err != nil) != tt.bad || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, error %v", tt.in, got, err, tt.want, tt.bad)
		}
	}
}

// TestRun_MemLimit: --slot-memory is a size, "none" is no cap, and
// without it the cap is machine.DefaultMemLimit (tested there).
func TestRun_MemLimit(t *testing.T) {
	for _, tt := range []struct {
		name string
		o    Run
		want int64
	}{
		{"Default", Run{Test: "go test ./..."}, machine.DefaultMemLimit("go test ./...", "")},
		{"None", Run{SlotMemory: "none"}, 0},
		{"Given", Run{SlotMemory: "256M"}, 256 << 20},
		{"RaceGiven", Run{Test: "go test -race ./...", SlotMemory: "8G"}, 8 << 30},
	} {
		if got := tt.o.MemLimit(); got != tt.want {
			t.Errorf("%s: MemLimit %d, want %d", tt.name, got, tt.want)
		}
	}
}
