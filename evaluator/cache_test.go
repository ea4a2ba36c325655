package evaluator

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/internal/testenv"
)

// cacheRepo's test appends a line to $OPTIMIZER_TEST_MARKS/runs at every
// run, so that a test can count how many runs really happened.
var cacheRepo = map[string]string{
	"ok":      "yes\n",
	"test.sh": "echo run >> \"$OPTIMIZER_TEST_MARKS/runs\"\nif [ -f hang ]; then sleep 100; fi\ntest \"$(cat ok)\" = yes || { echo 'ok is not yes: the check failed'; exit 1; }\n",
}

func cacheCandidates() []candidate.Candidate {
	return []candidate.Candidate{
		filesCand("good", map[string]string{"note": "x\n"}),
		filesCand("broken", map[string]string{"ok": "no\n"}),
		filesCand("hang", map[string]string{"hang": "1\n"}),
	}
}

func cacheOptions() Options {
	return Options{Candidates: cacheCandidates(), Test: "sh test.sh", Bench: "none", Timeout: 2 * time.Second, Sandbox: SandboxOff}
}

// runs counts the test command's runs so far.
func runs(t *testing.T, marks string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(marks, "runs"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Count(string(b), "run\n")
}

func byName(rep *Report, name string) CandidateResult {
	for _, c := range rep.Candidates {
		if c.Name == name {
			return c
		}
	}
	return CandidateResult{}
}

// TestRun_CacheTests checks the result cache's phase-1 reuse with real git,
// a real store and real test processes. A repeat reuses a pass and a
// failure (with its excerpt), and says from which job, without running
// them. A timeout is never reused. A changed test command, environment,
// timeout or base, or NoCache, runs the tests again.
func TestRun_CacheTests(t *testing.T) {
	marks := t.TempDir()
	t.Setenv("OPTIMIZER_TEST_MARKS", marks)
	h := newHarness(t, cacheRepo)
	ctx := context.Background()
	var baseEvent Event // the latest job's EventBaseline
	run := func(t *testing.T, opts Options) *Report {
		t.Helper()
		events := make(chan Event)
		got := make(chan Event)
		go func() {
			var b Event
			for e := range events {
				if e.Kind == EventBaseline {
					b = e
				}
			}
			got <- b
		}()
		opts.Events = events
		rep, err := h.run(t, ctx, 2, opts)
		close(events)
		baseEvent = <-got
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}

	first := run(t, cacheOptions())
	if got := runs(t, marks); got != 4 {
		t.Fatalf("first job: %d test runs, want 4 (base and three candidates)", got)
	}
	firstBase := baseEvent
	if strings.Contains(firstBase.Message, "(cached)") || firstBase.AtBase <= 0 {
		t.Fatalf("first job's baseline event %+v, want base's tests run, with how long they took", firstBase)
	}
	for _, c := range first.Candidates {
		if c.ReusedFrom != "" {
			t.Errorf("first job: %s reused from %s", c.Name, c.ReusedFrom)
		}
	}
	if f := byName(first, "hang").Failure; f == nil || f.Kind != FailTimeout {
		t.Fatalf("hang's failure %+v, want a timeout", f)
	}

	t.Run("Repeat", func(t *testing.T) {
		before := runs(t, marks)
		rep := run(t, cacheOptions())
		// Only hang runs again: a timeout is not the candidate's own outcome.
		if got := runs(t, marks) - before; got != 1 {
			t.Errorf("repeat: %d test runs, want 1 (hang's)", got)
		}
		// Base's outcome comes from the cache, with the time of the run
		// cached: a test's ETA before any has run in this job.
		if !strings.Contains(baseEvent.Message, "(cached)") || baseEvent.AtBase != firstBase.AtBase {
			t.Errorf("repeat's baseline event %+v, want cached, with the first run's time %s", baseEvent, firstBase.AtBase)
		}
		for _, name := range []string{"good", "broken"} {
			c := byName(rep, name)
			if c.ReusedFrom != first.Job {
				t.Errorf("%s: reused_from %q, want the first job %s", name, c.ReusedFrom, first.Job)
			}
			if want := byName(first, name).Verdict; c.Verdict != want {
				t.Errorf("%s: verdict %s, want %s as first", name, c.Verdict, want)
			}
		}
		if c := byName(rep, "hang"); c.ReusedFrom != "" || c.Failure == nil || c.Failure.Kind != FailTimeout {
			t.Errorf("hang: reused_from %q, failure %+v; want run again and timed out", c.ReusedFrom, c.Failure)
		}
		got, want := byName(rep, "broken").Failure, byName(first, "broken").Failure
		if got == nil || got.Kind != FailTest || got.Message != want.Message || got.Output != want.Output ||
			!strings.Contains(got.Output, "the check failed") {
			t.Errorf("broken's reused failure %+v, want the first's %+v with its excerpt", got, want)
		}
	})

	for _, tt := range []struct {
		name  string
		setup func(t *testing.T, o *Options)
	}{
		{"TestCommand", func(t *testing.T, o *Options) { o.Test = "sh ./test.sh" }},
		{"Environment", func(t *testing.T, o *Options) { t.Setenv("GOFLAGS", "-tags=cachetest") }},
		{"Timeout", func(t *testing.T, o *Options) { o.Timeout = 3 * time.Second }},
		{"NoCache", func(t *testing.T, o *Options) { o.NoCache = true }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := cacheOptions()
			opts.Candidates = opts.Candidates[:2]
			tt.setup(t, &opts)
			before := runs(t, marks)
			rep := run(t, opts)
			for _, c := range rep.Candidates {
				if c.ReusedFrom != "" {
					t.Errorf("%s reused from %s", c.Name, c.ReusedFrom)
				}
			}
			// Base's cached tests are reused unless NoCache or the key changed.
			if got := runs(t, marks) - before; got < 2 {
				t.Errorf("%d test runs, want both candidates run again", got)
			}
			if v := byName(rep, "broken").Verdict; v != VerdictFailed {
				t.Errorf("broken: %s, want failed", v)
			}
		})
	}

	t.Run("Base", func(t *testing.T) {
		os.WriteFile(filepath.Join(h.repo, "other"), []byte("x\n"), 0o644)
		git(t, h.repo, "add", "other")
		git(t, h.repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "next")
		old := h.base
		h.base = strings.TrimSpace(git(t, h.repo, "rev-parse", "HEAD"))
		defer func() { h.base = old }()
		opts := cacheOptions()
		opts.Candidates = opts.Candidates[:2]
		rep := run(t, opts)
		for _, c := range rep.Candidates {
			if c.ReusedFrom != "" {
				t.Errorf("%s on a new base reused from %s", c.Name, c.ReusedFrom)
			}
		}
	})
}

// TestRun_CacheInterrupted: a candidate whose tests were cut off by a
// cancelled job keeps nothing in the cache, and runs again next time.
func TestRun_CacheInterrupted(t *testing.T) {
	marks := t.TempDir()
	t.Setenv("OPTIMIZER_TEST_MARKS", marks)
	h := newHarness(t, cacheRepo)
	opts := cacheOptions()
	opts.Candidates = opts.Candidates[1:2] // broken: a failure the cache would keep
	opts.Timeout = time.Minute

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := make(chan Event)
	opts.Events = events
	go func() {
		for e := range events {
			if e.Kind == EventStart && e.Candidate == "broken" {
				cancel()
			}
		}
	}()
	rep, err := h.run(t, ctx, 2, opts)
	close(events)
	if err == nil || rep.State != "interrupted" {
		t.Fatalf("state %q, err %v; want interrupted", rep.State, err)
	}
	opts.Events = nil
	again, err := h.run(t, context.Background(), 2, opts)
	if err != nil {
		t.Fatal(err)
	}
	if c := byName(again, "broken"); c.ReusedFrom != "" || c.Verdict != VerdictFailed {
		t.Errorf("after an interrupted job: reused_from %q, verdict %s; want run again and failed", c.ReusedFrom, c.Verdict)
	}
	third, err := h.run(t, context.Background(), 2, opts)
	if err != nil {
		t.Fatal(err)
	}
	if c := byName(third, "broken"); c.ReusedFrom != again.Job {
		t.Errorf("third job: reused_from %q, want %s, the job that finished it", c.ReusedFrom, again.Job)
	}
}

// TestRun_CacheSamples checks the reuse of Go benchmark pairs on real
// binaries. A repeat reuses the pairs measured on byte-identical binaries
// (and the tests' outcome), records them as reused, and gets the same
// numbers. With more pairs allowed, it measures only the extra pairs. Other
// --bench-arg arguments, or NoCache, reuse none.
func TestRun_CacheSamples(t *testing.T) {
	testenv.Once(t)
	h := newHarness(t, opsRepo)
	ctx := context.Background()
	opts := opsOptions(t, "^BenchmarkOps$/^Prev$", nil, opsCand("a"))
	opts.Sandbox = SandboxOff
	run := func(t *testing.T, opts Options) CandidateResult {
		t.Helper()
		rep, err := h.run(t, ctx, 2, opts)
		if err != nil {
			t.Fatal(err)
		}
		c := rep.Candidates[0]
		if c.Pairs == 0 {
			t.Fatalf("%s: no pairs measured: %+v", rep.Job, c)
		}
		c.ID = rep.Job // the job, for the checks below
		return c
	}
	first := run(t, opts)
	if first.ReusedPairs != 0 {
		t.Fatalf("first job reused %d pairs", first.ReusedPairs)
	}

	var logged strings.Builder
	o := opts
	o.Logger = slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))
	second := run(t, o)
	// Its pairs settle it again, found by the key of its sources: no
	// binary is built, and the machine is not taken.
	if log := logged.String(); !strings.Contains(log, `msg="pairs reused"`) || strings.Contains(log, `msg="benchmark ready"`) {
		t.Errorf("repeat: want its pairs reused with no binary built; its log:\n%s", log)
	}
	if second.ReusedFrom != first.ID || second.ReusedPairs != first.Pairs || second.Pairs != first.Pairs ||
		len(second.ReusedPairsFrom) != 1 || second.ReusedPairsFrom[0] != first.ID {
		t.Fatalf("repeat: reused_from %q, %d of %d pairs from %v; want the tests and all %d pairs from %s",
			second.ReusedFrom, second.ReusedPairs, second.Pairs, second.ReusedPairsFrom, first.Pairs, first.ID)
	}
	if second.Speedup != first.Speedup || second.Verdict != first.Verdict {
		t.Errorf("repeat: %s %.4f×, want the first's %s %.4f× from the same pairs", second.Verdict, second.Speedup, first.Verdict, first.Speedup)
	}
	samples, err := h.db.BenchSamples(ctx, second.ID, "a")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range samples {
		if s.ReusedFrom != first.ID {
			t.Fatalf("repeat's stored sample %+v: want reused_from %s", s, first.ID)
		}
	}

	t.Run("MorePairs", func(t *testing.T) {
		o := opts
		o.MinPairs, o.MaxPairs = first.Pairs+2, first.Pairs+2
		var kept func() []Event
		o.Events, kept = listen(EventSample)
		c := run(t, o)
		var numbers []int
		for _, e := range kept() {
			numbers = append(numbers, e.Pair)
		}
		if c.ReusedPairs != first.Pairs || c.Pairs != first.Pairs+2 {
			t.Errorf("%d pairs, %d reused; want %d, %d reused", c.Pairs, c.ReusedPairs, first.Pairs+2, first.Pairs)
		}
		// The pairs measured now are numbered after the reused ones (the
		// ETA counts those behind the benchmark).
		if want := []int{first.Pairs + 1, first.Pairs + 2}; !slices.Equal(numbers, want) {
			t.Errorf("the pair events' numbers: %v, want %v", numbers, want)
		}
		samples, err := h.db.BenchSamples(ctx, c.ID, "a")
		if err != nil {
			t.Fatal(err)
		}
		own := 0
		for _, s := range samples {
			if s.ReusedFrom == "" {
				own++
			}
		}
		if own == 0 || own == len(samples) {
			t.Errorf("%d of %d samples measured by the job itself; want the extra pairs only", own, len(samples))
		}
	})
	for _, tt := range []struct {
		name  string
		setup func(o *Options)
	}{
		{"BenchArgs", func(o *Options) { o.BenchArgs = []string{"-test.benchmem=true"} }},
		{"NoCache", func(o *Options) { o.NoCache = true }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := opts
			tt.setup(&o)
			if c := run(t, o); c.ReusedPairs != 0 {
				t.Errorf("%d pairs reused from %v, want none", c.ReusedPairs, c.ReusedPairsFrom)
			}
		})
	}
}

// TestRun_CacheProfile: a repeat whose winner settles from stored pairs
// reuses the winner's profile too. It is copied into its own artifacts and
// recorded as its own, with no binary built. With --no-cache it profiles
// anew.
func TestRun_CacheProfile(t *testing.T) {
	testenv.Once(t)
	h := newHarness(t, opsRepo)
	ctx := context.Background()
	// Half the loop: 2× faster on a benchmark long enough that the hack
	// check does not take it for a body the compiler removed.
	fast := filesCand("fast", map[string]string{"ops/ops.go": strings.Replace(opsRepo["ops/ops.go"], "i++", "i += 2", 1)})
	opts := opsOptions(t, "^BenchmarkSpan$/^size-100000$", nil, fast)
	opts.Sandbox, opts.MinPairs, opts.MaxPairs, opts.Profile = SandboxOff, 6, 12, true
	opts.Artifacts = t.TempDir()
	run := func(t *testing.T, opts Options) (*Report, string) {
		t.Helper()
		var logged strings.Builder
		opts.Logger = slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))
		rep, err := h.run(t, ctx, 2, opts)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Winner == nil || rep.Profile == nil {
			t.Fatalf("%s: winner %v, profile %v, note %q; want fast, profiled", rep.Job, rep.Winner, rep.Profile, rep.ProfileNote)
		}
		return rep, logged.String()
	}
	first, _ := run(t, opts)
	second, log := run(t, opts)
	if !strings.Contains(log, `msg="profile reused"`) || strings.Contains(log, `msg="benchmark ready"`) {
		t.Errorf("repeat: want its profile reused and no binary built; its log:\n%s", log)
	}
	for _, f := range second.Profile.Files {
		if !strings.HasPrefix(f, filepath.Join(opts.Artifacts, second.Job)) {
			t.Errorf("repeat's profile file %s is not in its own artifacts", f)
		} else if _, err := os.Stat(f); err != nil {
			t.Error(err)
		}
	}
	if a, b := first.Profile.Top, second.Profile.Top; len(a) == 0 || len(a) != len(b) || a[0].Func != b[0].Func {
		t.Errorf("repeat's top functions differ from the first's")
	}
	o := opts
	o.NoCache = true
	if _, log := run(t, o); strings.Contains(log, `msg="profile reused"`) {
		t.Error("--no-cache reused a profile")
	}
}
