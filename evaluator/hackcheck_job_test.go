package evaluator

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/evaluator/resultcache"
	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/result"
)

// hackRepo is a module with two slow functions. Sum (testenv.SlowSum) is
// benchmarked with b.Loop, on 5000 ints: about 500µs an op, far above the
// one-off costs of a first iteration (40µs, give or take 40µs, here).
// Tri is benchmarked by a loop that drops its result, so that the compiler
// may remove a body that has no loop of its own.
var hackRepo = func() map[string]string {
	m := testenv.SlowSum("example.com/hack", `
func BenchmarkSum(b *testing.B) {
	xs := make([]int, 5000)
	for i := range xs {
		xs[i] = i - 2500
	}
	for b.Loop() {
		Sum(xs)
	}
}
`)
	m["tri/tri.go"] = `package tri

// Tri is 1 + 2 + ... + n.
func Tri(n int) int {
	t := 0
	for i := 1; i <= n; i++ {
		t += i
	}
	return t
}
`
	m["tri/tri_test.go"] = `package tri

import "testing"

func TestTri(t *testing.T) {
	for n, want := range []int{0, 1, 3, 6, 10, 15, 21} {
		if got := Tri(n); got != want {
			t.Errorf("Tri(%d) = %d, want %d", n, got, want)
		}
	}
}

func BenchmarkTri(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Tri(3000)
	}
}
`
	return m
}()

// hackCand is hackRepo with one function's body replaced: Sum's in
// sum/sum.go, or Tri's in tri/tri.go.
func hackCand(fn, body string) map[string]string {
	file := map[string]string{"Sum": "sum/sum.go", "Tri": "tri/tri.go"}[fn]
	src := hackRepo[file]
	start := strings.Index(src, "func "+fn+"(")
	end := start + strings.Index(src[start:], "\n}\n") + 3
	return map[string]string{file: src[:start] + body + src[end:]}
}

// cachedSum is a Sum that keeps its result across iterations.
const cachedSum = `var last struct {
	p    *int
	n, v int
}

// Sum adds xs up, and remembers the last slice it added.
func Sum(xs []int) int {
	if len(xs) > 0 && last.p == &xs[0] && last.n == len(xs) {
		return last.v
	}
	t := 0
	for _, x := range xs {
		n, _ := strconv.Atoi(fmt.Sprint(x))
		t += n
	}
	if len(xs) > 0 {
		last.p, last.n, last.v = &xs[0], len(xs), t
	}
	return t
}
`

// TestRun_HackCheck: a candidate that keeps its result across iterations
// and one whose benchmark body the compiler removes are suspect, with what
// gave each away. Honest candidates, one far faster and one about 2x, are
// not. A busy machine may leave the cached one open, which its note says.
func TestRun_HackCheck(t *testing.T) {
	testenv.Once(t)
	h := newHarness(t, hackRepo)
	shortSamples(t, 50*time.Millisecond)
	cands := map[string]map[string]string{
		"cached":  hackCand("Sum", cachedSum),
		"removed": hackCand("Tri", "func Tri(n int) int { return n * (n + 1) / 2 }\n"),
		"plain":   hackCand("Sum", "var _, _ = fmt.Sprint, strconv.Atoi\n\nfunc Sum(xs []int) int {\n\tt := 0\n\tfor _, x := range xs {\n\t\tt += x\n\t}\n\treturn t\n}\n"),
		"twice": hackCand("Tri", `func Tri(n int) int {
	t := 0
	i := 1
	for ; i+1 <= n; i += 2 {
		t += 2*i + 1
	}
	if i == n {
		t += n
	}
	return t
}
`),
	}
	names := []string{"cached", "removed", "plain", "twice"}
	var specs []candidate.Candidate
	for _, name := range names {
		specs = append(specs, filesCand(name, cands[name]))
	}
	rep, err := h.run(t, context.Background(), 2, Options{Candidates: specs, MinPairs: 8, MaxPairs: 12, Pin: true, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range names {
		c := rep.Candidates[i]
		kind := map[string]string{"cached": result.HackCached, "removed": result.HackRemoved}[name]
		if kind == "" {
			if c.Verdict == VerdictSuspect || c.Verdict == VerdictFailed {
				t.Errorf("%s: %s (%s), hacks %+v; want an honest verdict", name, c.Verdict, c.Note, c.Hacks)
			}
			continue
		}
		if kind == result.HackCached && strings.Contains(c.Note, "cannot tell") {
			t.Logf("%s: the machine is too busy for the hack check to judge it: %s", name, c.Note)
			continue
		}
		if c.Verdict != VerdictSuspect || len(c.Hacks) == 0 || c.Hacks[0].Kind != kind || c.Hacks[0].Detail == "" {
			t.Errorf("%s: %s %.3g× (%s), hacks %+v; want suspect, %s", name, c.Verdict, c.Speedup, c.Note, c.Hacks, kind)
		}
		if rep.Winner != nil && *rep.Winner == name {
			t.Errorf("the suspect %s won", name)
		}
	}
}

// TestRun_HackCheckReused: a candidate found suspect stays suspect when a
// later job on the same store settles it from the pairs the first stored.
// It skips where a busy machine leaves the first job unable to judge.
func TestRun_HackCheckReused(t *testing.T) {
	testenv.Once(t)
	h := newHarness(t, hackRepo)
	shortSamples(t, 50*time.Millisecond)
	opts := Options{Candidates: []candidate.Candidate{filesCand("cached", hackCand("Sum", cachedSum))},
		MinPairs: 8, MaxPairs: 12, Pin: true, Timeout: 2 * time.Minute}
	for i := range 2 {
		rep, err := h.run(t, context.Background(), 2, opts)
		if err != nil {
			t.Fatal(err)
		}
		c := rep.Candidates[0]
		if i == 0 && strings.Contains(c.Note, "cannot tell") {
			t.Skipf("the machine is too busy for the hack check to judge the first job: %s", c.Note)
		}
		if c.Verdict != VerdictSuspect || len(c.Hacks) == 0 || c.Hacks[0].Kind != result.HackCached {
			t.Fatalf("job %d: %s %.3g× (%s), hacks %+v; want suspect, cached", i+1, c.Verdict, c.Speedup, c.Note, c.Hacks)
		}
		if (c.ReusedPairs > 0) != (i == 1) {
			t.Errorf("job %d reused %d pairs; want reuse only in the second", i+1, c.ReusedPairs)
		}
	}
}

// TestJudgeHacks: first iterations that settle the check make a cached
// candidate suspect. Where base's first iterations are too noisy to tell,
// the candidate keeps its verdict, and its note says the check could not tell.
func TestJudgeHacks(t *testing.T) {
	const us = 1e-6
	newCand := func() *cand {
		return &cand{res: CandidateResult{Verdict: VerdictFaster, Benchmarks: []BenchResult{
			{Name: "BenchmarkSum", Unit: "sec/op", Base: 60 * us, Candidate: 0.1 * us}}}}
	}
	settled := []resultcache.First{{Bench: "BenchmarkSum",
		Base: []float64{95 * us, 97 * us, 130 * us}, Cand: []float64{110 * us, 106 * us, 120 * us}}}
	j := &job{}
	c := newCand()
	j.judgeHacks(c, settled)
	if c.res.Verdict != VerdictSuspect || len(c.res.Hacks) != 1 || strings.Contains(c.res.Note, "cannot tell") {
		t.Errorf("settled: %s (%s), hacks %+v; want suspect, cached", c.res.Verdict, c.res.Note, c.res.Hacks)
	}
	noisy := []resultcache.First{{Bench: "BenchmarkSum",
		Base: []float64{55 * us, 95 * us, 130 * us}, Cand: []float64{110 * us, 106 * us, 120 * us}}}
	c = newCand()
	j.judgeHacks(c, noisy)
	if c.res.Verdict != VerdictFaster || len(c.res.Hacks) != 0 || !strings.Contains(c.res.Note, "cannot tell whether BenchmarkSum keeps a result") {
		t.Errorf("noisy: %s (%s), hacks %+v; want faster, with a note that the check cannot tell", c.res.Verdict, c.res.Note, c.res.Hacks)
	}
}
