package optimize

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/evaluator/gobench"
	"github.com/optimizer-dev/optimizer/jobspec"
	"github.com/optimizer-dev/optimizer/store"
)

// TestChooseHoldout: the choice is a function of the names, the fraction
// and the seed, holds out at least one and never all, and other seeds
// choose otherwise.
func TestChooseHoldout(t *testing.T) {
	names := []string{"BenchmarkE", "BenchmarkA", "BenchmarkC", "BenchmarkB", "BenchmarkD", "BenchmarkF", "BenchmarkG", "BenchmarkH"}
	shown, held := ChooseHoldout(names, 0.25, 42)
	if len(held) != 2 || len(shown) != 6 || !slices.IsSorted(shown) || !slices.IsSorted(held) {
		t.Fatalf("shown %v, held %v; want 6 and 2, sorted", shown, held)
	}
	for _, h := range held {
		if slices.Contains(shown, h) {
			t.Errorf("%s is both shown and held out", h)
		}
	}
	rev := slices.Clone(names)
	slices.Reverse(rev)
	if s2, h2 := ChooseHoldout(rev, 0.25, 42); !slices.Equal(s2, shown) || !slices.Equal(h2, held) {
		t.Errorf("the same names in another order give %v, %v; want %v, %v", s2, h2, shown, held)
	}
	differs := false
	for seed := uint64(1); seed < 20 && !differs; seed++ {
		_, h := ChooseHoldout(names, 0.25, seed)
		differs = !slices.Equal(h, held)
	}
	if !differs {
		t.Error("every seed holds out the same benchmarks")
	}
	if _, h := ChooseHoldout(names[:2], 0.01, 1); len(h) != 1 {
		t.Errorf("a tiny fraction of 2 holds out %v; want one", h)
	}
	if s, h := ChooseHoldout(names[:2], 0.99, 1); len(h) != 1 || len(s) != 1 {
		t.Errorf("a fraction near 1 of 2 holds out %v and shows %v; want one each", h, s)
	}
}

// TestLoop_Holdout runs the loop with a stand-in for the jobs. The
// generator's request names only the shown benchmarks, and the rounds
// measure only those. The re-measure judges on all of them, with the
// held-out ones named. An overfit best is reported overfit, not winner,
// with the holdout recorded.
func TestLoop_Holdout(t *testing.T) {
	ctx := context.Background()
	repo, base := newTestRepo(t)
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "store.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	targets, err := ResolveTargets(ctx, repo, base, []string{"sumsq.SumSquares"})
	if err != nil {
		t.Fatal(err)
	}
	all := []string{"BenchmarkA", "BenchmarkB", "BenchmarkC", "BenchmarkD"}
	reqs := t.TempDir()
	gen := `cat > "` + reqs + `/$OPTIMIZER_MODE-$$.json"; printf '%s\n' '{"name":"x","files":{"sumsq/sumsq.go":"package sumsq\n\nfunc SumSquares(xs []int) int { return 0 }\n"}}'`
	for _, final := range []evaluator.Verdict{evaluator.VerdictOverfit, evaluator.VerdictFaster} {
		t.Run(string(final), func(t *testing.T) {
			var jobs []evaluator.Options
			l := &Loop{Repo: repo, Base: base, Targets: targets, Rounds: 1, DB: db,
				Generators: []Generator{{Name: "g", Command: gen}},
				Holdout:    DefaultHoldout, HoldoutMin: DefaultHoldoutMin, HoldoutSeed: 7,
				Spec: jobspec.Spec{NoPin: true, NoProfile: true}, Options: specOptions(repo, base, ""),
				Evaluate: func(_ context.Context, opts evaluator.Options) (*evaluator.Report, error) {
					jobs = append(jobs, opts)
					res := evaluator.CandidateResult{Name: opts.Candidates[0].Name, Verdict: evaluator.VerdictFaster,
						Speedup: 3, CI: &[2]float64{2.5, 3.5}}
					if opts.Kind == "optimize-remeasure" {
						res.Verdict = final
					}
					return &evaluator.Report{Job: "job-" + opts.Kind, Candidates: []evaluator.CandidateResult{res}}, nil
				},
				benchmarksOf: func(context.Context, []Target) ([]string, error) { return all, nil },
			}
			rep, err := l.Run(ctx)
			if err != nil {
				t.Fatal(err)
			}
			h := rep.Holdout
			if h == nil || h.Seed != 7 || len(h.HeldOut) != 1 || len(h.Shown) != 3 || !slices.Equal(h.Benchmarks, all) {
				t.Fatalf("holdout %+v; want 1 of the 4 held out with seed 7", h)
			}
			held := h.HeldOut[0]
			if len(jobs) != 2 {
				t.Fatalf("%d jobs; want a round and a re-measure", len(jobs))
			}
			round, re := jobs[0], jobs[1]
			shownF, _ := gobench.NewFilter(round.BenchFilter)
			judgeF, _ := gobench.NewFilter(re.BenchFilter)
			for _, b := range all {
				if shownF.Match(b) == (b == held) {
					t.Errorf("the round's filter %q: matches %s %v", round.BenchFilter, b, shownF.Match(b))
				}
				if !judgeF.Match(b) {
					t.Errorf("the re-measure's filter %q does not match %s", re.BenchFilter, b)
				}
			}
			// The store records the re-measure's own settings, not the template's.
			var rec jobspec.Recorded
			if err := json.Unmarshal(re.Config, &rec); err != nil || rec.BenchFilter != re.BenchFilter || !rec.NoCache ||
				rec.MaxPairs != evaluator.DefaultMaxPairs*RemeasureFactor || time.Duration(rec.BenchBudget) != re.Budget {
				t.Errorf("the re-measure recorded %s (%v), want its filter, pairs, budget and no cache", re.Config, err)
			}
			if len(round.Holdout) != 0 || !slices.Equal(re.Holdout, h.HeldOut) {
				t.Errorf("holdout of the round %v, of the re-measure %v; want none, then %v", round.Holdout, re.Holdout, h.HeldOut)
			}
			files, _ := filepath.Glob(filepath.Join(reqs, "generate-*.json"))
			for _, f := range files {
				body, _ := os.ReadFile(f)
				var req Request
				if err := json.Unmarshal(body, &req); err != nil {
					t.Fatal(err)
				}
				if strings.Contains(string(body), held) || !slices.Equal(req.Benchmarks, h.Shown) || req.HeldOut != 1 {
					t.Errorf("the generator's request names %v (held out %d), or names %s: %s", req.Benchmarks, req.HeldOut, held, body)
				}
			}
			if len(files) == 0 {
				t.Fatal("the generator wrote no request")
			}
			var text strings.Builder
			rep.WriteText(&text)
			if final == evaluator.VerdictOverfit {
				if rep.Winner != "" || rep.Overfit == "" || !strings.Contains(text.String(), "overfit") {
					t.Errorf("winner %q, overfit %q; want no winner and the best named overfit:\n%s", rep.Winner, rep.Overfit, text.String())
				}
			} else if rep.Winner == "" || rep.Overfit != "" {
				t.Errorf("winner %q, overfit %q; want a winner", rep.Winner, rep.Overfit)
			}
			if !strings.Contains(text.String(), "held out from the generators") {
				t.Errorf("the text does not say what was held out:\n%s", text.String())
			}
		})
	}
}
