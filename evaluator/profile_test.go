package evaluator

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/store"
	"github.com/optimizer-dev/optimizer/testdata"
)

// newFixtureHarness is a harness on the Go fixture module.
func newFixtureHarness(t *testing.T) *harness {
	t.Helper()
	repo := filepath.Join(t.TempDir(), "repo")
	if err := testdata.WriteFixture(repo); err != nil {
		t.Fatal(err)
	}
	base, err := testdata.InitRepo(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "optimizer.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &harness{repo: repo, base: base, db: db}
}

// demoCandidate loads one candidate of the demo set.
func demoCandidate(t *testing.T, name string) candidate.Candidate {
	t.Helper()
	dir := t.TempDir()
	if err := testdata.WriteDemoCandidates(dir); err != nil {
		t.Fatal(err)
	}
	for _, c := range testdata.DemoCandidates {
		if c.Name == name {
			cs, err := candidate.Load(filepath.Join(dir, c.Path))
			if err != nil {
				t.Fatal(err)
			}
			return cs[0]
		}
	}
	t.Fatalf("no demo candidate %s", name)
	return candidate.Candidate{}
}

// TestRun_ProfileGo profiles the fixture's fast candidate: the summary names
// the function it changed, its line table holds the changed lines, and the
// raw profiles are kept and recorded.
func TestRun_ProfileGo(t *testing.T) {
	testenv.Once(t) // builds, benchmarks and profiles the fixture: 14 s here
	h := newFixtureHarness(t)
	art := t.TempDir()
	rep, err := h.run(t, context.Background(), 2, Options{
		Candidates: []candidate.Candidate{demoCandidate(t, "fast")},
		Timeout:    2 * time.Minute, MaxPairs: 8, Profile: true, Artifacts: art,
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Winner == nil {
		t.Fatalf("no winner: %+v", rep.Candidates[0])
	}
	sum := rep.Profile
	if sum == nil {
		t.Fatalf("no profile; warnings %v", rep.Warnings)
	}
	var named bool
	for _, f := range sum.Top {
		if f.Func == "sumsq.SumSquares" && f.Changed && f.File == "sumsq/sumsq.go" {
			named = true
		}
	}
	if !named {
		t.Errorf("top functions do not name the changed sumsq.SumSquares: %+v", sum.Top)
	}
	var added, removed bool
	for _, l := range sum.Lines {
		added = added || (l.Change == "+" && strings.Contains(l.Text, "x * x"))
		removed = removed || (l.Change == "-" && strings.Contains(l.Text, "math.Pow"))
	}
	if !added || !removed {
		t.Errorf("line table lacks the changed lines (+ x * x: %v, - math.Pow: %v)", added, removed)
	}
	if sum.Alloc == nil {
		t.Error("allocations changed but were not summarised")
	}
	for _, f := range sum.Files {
		if !strings.HasPrefix(f, art) {
			t.Errorf("raw profile %s is not under the artifacts %s", f, art)
		}
		if _, err := os.Stat(f); err != nil {
			t.Errorf("raw profile: %v", err)
		}
	}
	rows, err := h.db.Profiles(context.Background(), rep.Job)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, r := range rows {
		kinds[r.Kind] = true
		if !json.Valid(r.Summary) || r.Candidate != "fast" {
			t.Errorf("profile row %+v", r)
		}
	}
	if !kinds["cpu"] || !kinds["alloc"] {
		t.Errorf("profile rows of kinds %v, want cpu and alloc", kinds)
	}
}

// TestRun_ProfileCommand runs --profile on the winner's slot and keeps its
// files; a failing command is a warning, not a failed job or a new verdict.
func TestRun_ProfileCommand(t *testing.T) {
	for _, tt := range []struct {
		name, cmd string
		warn      bool
	}{
		{"OK", "echo profiled > flame.txt; cat speed", false},
		{"Fails", "echo partial > flame.txt; exit 3", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// One candidate 20 times faster than base: the point is the
			// winner's profile. With the shell repository's 5× (and a
			// slower candidate beside it), a busy machine (load 24 on 2
			// CPUs) left no winner to profile.
			repo := maps.Clone(shellRepo)
			repo["speed"] = "0.2\n"
			h := newHarness(t, repo)
			opts := shellOptions()
			opts.Candidates = []candidate.Candidate{filesCand("fast", map[string]string{"speed": "0.01\n"})}
			opts.ProfileCmd, opts.Artifacts = tt.cmd, t.TempDir()
			rep, err := h.run(t, context.Background(), 1, opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := verdicts(rep); got["fast"] != VerdictWinner {
				t.Fatalf("verdicts %v, want fast the winner", got)
			}
			sum := rep.Profile
			if sum == nil {
				t.Fatal("no profile")
			}
			var flame string
			for _, f := range sum.Files {
				if filepath.Base(f) == "flame.txt" {
					flame = f
				}
			}
			if b, err := os.ReadFile(flame); err != nil || !strings.Contains(string(b), "partial") && !strings.Contains(string(b), "profiled") {
				t.Errorf("flame.txt not kept from the winner's slot: %q, %v (files %v)", b, err, sum.Files)
			}
			warned := strings.Contains(strings.Join(rep.Warnings, "\n"), "profile fast")
			if warned != tt.warn {
				t.Errorf("warnings %q, want a profile warning: %v", rep.Warnings, tt.warn)
			}
			if rep.State != "finished" {
				t.Errorf("state %s", rep.State)
			}
		})
	}
}
