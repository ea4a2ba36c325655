package optimize

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/jobspec"
	"github.com/optimizer-dev/optimizer/store"
	"github.com/optimizer-dev/optimizer/testdata"
	"github.com/optimizer-dev/optimizer/worktreepool"
)

// holdoutFixture is a module whose slow Sum four benchmarks execute, each
// on an input of its own size.
var holdoutFixture = testenv.SlowSum("example.com/holdout", `
func bench(b *testing.B, n int) {
	xs := input(n)
	for b.Loop() {
		Sum(xs)
	}
}

func BenchmarkSum100(b *testing.B) { bench(b, 100) }
func BenchmarkSum200(b *testing.B) { bench(b, 200) }
func BenchmarkSum300(b *testing.B) { bench(b, 300) }
func BenchmarkSum400(b *testing.B) { bench(b, 400) }
`)

// The two generators' candidates for Sum. The special-casing one knows the
// answers for the inputs of the benchmarks it was shown (@SHOWN@, which its
// script fills in from the request), by their length and a checksum of
// their head. Elsewhere it is base's Sum, renamed slow. The checksum keeps
// its cost well above an empty call's, so the hack check's removed test
// cannot call it suspect before the holdout judges it.
const honestSum = `package sum

// Sum adds xs up.
func Sum(xs []int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}
`

var specialSum = strings.NewReplacer("// Sum adds", "// slow adds", "func Sum(", "func slow(").Replace(holdoutFixture["sum/sum.go"]) + `
type answer struct{ head, sum int }

var known = map[int]answer{}

func init() {
	for _, n := range []int{@SHOWN@} {
		xs := make([]int, n)
		for i := range xs {
			xs[i] = i*7%13 - 6
		}
		known[n] = answer{head(xs), slow(xs)}
	}
}

// head is a checksum of xs's first 32 elements.
func head(xs []int) int {
	h := 0
	for _, x := range xs[:min(len(xs), 32)] {
		h = h*31 + x
	}
	return h
}

// Sum adds xs up: at once for the inputs the benchmarks use.
func Sum(xs []int) int {
	if a, ok := known[len(xs)]; ok && a.head == head(xs) {
		return a.sum
	}
	return slow(xs)
}
`

// TestLoop_HoldoutCatchesOverfit runs the loop on real jobs. A generator
// that special-cases the inputs of the benchmarks its request names wins on
// them, and the re-measure calls it overfit. An honest generator's best
// stays the winner.
func TestLoop_HoldoutCatchesOverfit(t *testing.T) {
	testenv.Once(t)
	ctx := context.Background()
	repo := filepath.Join(t.TempDir(), "repo")
	for name, body := range holdoutFixture {
		p := filepath.Join(repo, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base, err := testdata.InitRepo(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "store.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	pool, err := worktreepool.Open(ctx, worktreepool.Options{Repo: repo, Base: base, Size: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close(context.Background()) })
	targets, err := ResolveTargets(ctx, repo, base, []string{"sum.Sum"})
	if err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	line := func(name, src string) string {
		b, _ := json.Marshal(map[string]any{"name": name, "files": map[string]string{"sum/sum.go": src}})
		return string(b) + "\n"
	}
	os.WriteFile(filepath.Join(dir, "honest.jsonl"), []byte(line("plain", honestSum)), 0o644)
	os.WriteFile(filepath.Join(dir, "special.jsonl"), []byte(line("special", specialSum)), 0o644)
	special := `shown=$(grep -o 'BenchmarkSum[0-9]*' | sed 's/BenchmarkSum//' | sort -u | paste -sd, -); ` +
		`test -n "$shown" && sed "s/@SHOWN@/$shown/" '` + filepath.Join(dir, "special.jsonl") + `'`
	honest := `cat >/dev/null; cat '` + filepath.Join(dir, "honest.jsonl") + `'`

	for _, tt := range []struct {
		name, command string
		overfit       bool
	}{
		{"SpecialCases", special, true},
		{"Honest", honest, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := &Loop{Repo: repo, Base: base, Targets: targets, Rounds: 1, Pool: pool, DB: db,
				Generators: []Generator{{Name: "gen", Command: tt.command}},
				Holdout:    DefaultHoldout, HoldoutMin: DefaultHoldoutMin, HoldoutSeed: 1,
				Spec: jobspec.Spec{Timeout: jobspec.Duration(time.Minute), MaxPairs: 8, BenchBudget: jobspec.Duration(30 * time.Second),
					NoPin: true, NoProfile: true},
				Options: specOptions(repo, base, t.TempDir()),
			}
			rep, err := l.Run(ctx)
			if err != nil {
				t.Fatal(err)
			}
			h := rep.Holdout
			if h == nil || len(h.Benchmarks) != 4 || len(h.HeldOut) != 1 {
				t.Fatalf("holdout %+v; want 1 of the 4 benchmarks held out", h)
			}
			if rep.Remeasure == nil {
				t.Fatalf("no re-measure: candidates %+v", rep.Candidates)
			}
			res := rep.Remeasure.Result
			if res.Holdout == nil {
				t.Fatalf("the re-measure did not judge the holdout: %+v", res)
			}
			if tt.overfit != (res.Verdict == evaluator.VerdictOverfit) || tt.overfit != (rep.Overfit != "") || tt.overfit == (rep.Winner != "") {
				t.Errorf("re-measure %s (shown %.3g×, held out %.3g×; %s), winner %q, overfit %q; want overfit %v",
					res.Verdict, res.Holdout.ShownSpeedup, res.Holdout.HeldOutSpeedup, res.Note, rep.Winner, rep.Overfit, tt.overfit)
			}
		})
	}
}
