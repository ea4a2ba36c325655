// Package resultcache says what the result cache holds and what it is keyed
// by. A job reuses what an earlier job learned when everything that could
// change it is the same (docs/design.md, "The result cache"):
//
//   - A candidate's phase-1 outcome (Tests), keyed by its content id, the
//     baseline's key, --timeout, the sandbox, the memory cap and whose test
//     files judge it (Keys.Tests).
//   - A Go benchmark's calibration, keyed by the hash of base's test
//     binary, the benchmark, its pattern, the calibration target,
//     --bench-arg, how its process runs and the host (Keys.Calibration).
//   - A candidate's benchmark pairs (Round), keyed by the hashes of both
//     sides' test binaries, every benchmark with its iteration count, and
//     the same arguments, placement and host (Keys.Samples). They are keyed
//     again by the sources that make those binaries (Keys.Source), so that
//     a repeat needs no build to find them.
//   - The lone first iterations the hack check timed (First), beside the
//     pairs of the same sources, so that pairs reused without a build are
//     checked as measured ones are.
//   - A winner's Go profile (Profile), keyed by its pairs' source key and
//     the benchmarks it was found faster on.
//
// The evaluator decides what is kept and reads and writes the entries in
// the store; this package holds no state and imports nothing of the job.
package resultcache

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/gobench"
	"github.com/optimizer-dev/optimizer/evaluator/measure"
	"github.com/optimizer-dev/optimizer/result"
	"github.com/optimizer-dev/optimizer/store"
)

// Version changes every key when the meaning of an entry changes. In v2, Go
// samples run from one path, each from a fresh copy of their binary. In v3,
// each pair runs in one of two code layouts and four stack offsets.
const Version = "cache-v3"

// Key hashes kind and parts, each length-prefixed, under Version.
func Key(kind string, parts ...string) string {
	h := sha256.New()
	io.WriteString(h, Version+"\x00"+kind)
	for _, p := range parts {
		fmt.Fprintf(h, "\x00%d:%s", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Keys holds what of a job's settings enters the keys.
type Keys struct {
	Timeout             time.Duration
	Sandbox, Net        bool // processes run sandboxed; the sandbox has the network
	MemLimit            int64
	TrustCandidateTests bool
	// GoTest: the test command is go test -json. Otherwise the rule that
	// finds the other languages' test files judges a candidate too.
	GoTest          bool
	BenchArgs       []string
	BuildFlags      []string
	BenchFilter     string
	All             bool
	CalibrateTarget time.Duration
	CPU             int    // the CPU benchmark processes are pinned to, or -1
	Host            string // Host()
}

// target is the calibration target as keys hold it. "cpu" marks counts
// scaled to CPU time on a busy CPU (gobench.CPUScaled), which counts
// stored before that was done are not.
func (k Keys) target() string { return k.CalibrateTarget.String() + " cpu" }

// Tests is the key of a candidate's phase-1 outcome: baseline is the
// baseline's key, id the candidate's content id.
func (k Keys) Tests(baseline, id string) string {
	parts := []string{baseline, id,
		k.Timeout.String(), fmt.Sprint(k.Sandbox, k.Net), fmt.Sprint(k.MemLimit),
		fmt.Sprint(k.TrustCandidateTests), fmt.Sprint(k.GoTest)}
	if !k.GoTest {
		parts = append(parts, "other-test-files-v1")
	}
	return Key(store.CacheTests, parts...)
}

// place is what of a benchmark process's placement can change its numbers.
func (k Keys) place(cpu int, mem int64, sandbox bool) string {
	return fmt.Sprintf("cpu=%d mem=%d sandbox=%v host=%s", cpu, mem, sandbox, k.Host)
}

func (k Keys) placeOf(at gobench.Place) string {
	return k.place(at.CPU, at.MemLimit, at.Sandbox != nil)
}

// Calibration is the key of b's calibration at base under pattern; bin is
// the hash of base's binary. "" when bin is "".
func (k Keys) Calibration(bin string, b *measure.GoBench, pattern string) string {
	if bin == "" {
		return ""
	}
	return Key(store.CacheCalibration, bin, b.Pkg.ImportPath, b.Name, pattern, k.target(),
		strings.Join(k.BenchArgs, "\x00"), k.placeOf(b.BaseAt))
}

// Samples is the key of a candidate's pairs: both sides' binaries, hashed
// by hash, every benchmark with its count, and how they run. "" when a
// binary has no hash.
func (k Keys) Samples(benches []*measure.GoBench, hash func(path string) string) string {
	parts := []string{strings.Join(k.BenchArgs, "\x00")}
	for _, b := range benches {
		bb, cb := hash(b.BaseBin), hash(b.CandBin)
		if bb == "" || cb == "" {
			return ""
		}
		parts = append(parts, fmt.Sprintf("%s %s n=%d base=%s cand=%s base@%s cand@%s", b.Pkg.ImportPath, b.Name, b.N, bb, cb,
			k.placeOf(b.BaseAt), k.placeOf(b.CandAt)))
	}
	slices.Sort(parts[1:])
	return Key(store.CacheSamples, parts...)
}

// Source is the key of a candidate's pairs by what makes its test binaries
// and how they run. It holds the candidate's tree and base's (id and the
// baseline's key), whose test files judge it, and --build-flags. It holds
// the benchmarks chosen and their arguments, the calibration target,
// placement and host. It also holds env, all of go env (BuildEnv).
//
// Built with -trimpath, the binaries are a function of these, except for
// what lies outside the tree. So there is no key ("") when env is "". None
// is asked for when the candidate changes a module (ChangesModules).
func (k Keys) Source(baseline, id, env string) string {
	if env == "" || id == "" {
		return ""
	}
	return Key("samples-by-source", baseline, id, fmt.Sprint(k.TrustCandidateTests),
		strings.Join(k.BuildFlags, "\x00"), k.BenchFilter, fmt.Sprint(k.All), "scoped by coverage",
		strings.Join(k.BenchArgs, "\x00"), k.target(),
		k.place(k.CPU, k.MemLimit, k.Sandbox), env)
}

// ChangesModules reports whether a candidate changing paths changes a
// go.mod or go.work: its build may then read what lies outside the tree.
func ChangesModules(paths []string) bool {
	return slices.ContainsFunc(paths, func(p string) bool {
		return strings.HasSuffix(p, "go.mod") || strings.HasSuffix(p, "go.work")
	})
}

// ProfileKey is the key of a winner's Go profile: its pairs' source key
// and the benchmarks it was found faster on, which choose what is
// profiled. "" when source is "".
func ProfileKey(source string, faster []string) string {
	if source == "" {
		return ""
	}
	faster = slices.Sorted(slices.Values(faster))
	return Key("profile", source, strings.Join(faster, "\x00"))
}

// FirstsKey is the key of the first iterations timed for the pairs under
// source; "" when source is "".
func FirstsKey(source string) string {
	if source == "" {
		return ""
	}
	return Key(store.CacheFirsts, source)
}

// Tests is a candidate's phase-1 outcome as the cache keeps it.
type Tests struct {
	Verdict     result.Verdict    `json:"verdict"` // passed or failed
	Failure     *result.Failure   `json:"failure,omitempty"`
	TestsPassed int               `json:"tests_passed,omitempty"`
	TestsTotal  int               `json:"tests_total,omitempty"`
	TestEdits   *result.TestEdits `json:"test_edits,omitempty"`
	// What the first staging learned, for the later phases.
	Restore *Restore `json:"restore,omitempty"`
	Contrib *Contrib `json:"contrib,omitempty"`
}

// Restore is base's test files that staging laid back over the candidate.
type Restore struct {
	Files   map[string][]byte `json:"files,omitempty"`
	Deleted []string          `json:"deleted,omitempty"`
}

// Contrib is the tests a candidate adds.
type Contrib struct {
	Files map[string][]byte `json:"files,omitempty"`
	Names []string          `json:"names,omitempty"`
	Dirs  []string          `json:"dirs,omitempty"`
}

// FileHash is the SHA-256 of a file, such as a test binary; "" when it
// cannot be read, which makes no key.
func FileHash(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Host names the machine benchmarks ran on: its name, CPU model and count,
// and platform.
var Host = sync.OnceValue(func() string {
	name, _ := os.Hostname()
	model := ""
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	return fmt.Sprintf("%s/%s/%d/%s/%s", name, model, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)
})
