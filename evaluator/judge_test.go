package evaluator

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/evaluator/gotest"
	"github.com/optimizer-dev/optimizer/evaluator/testedits"
	"github.com/optimizer-dev/optimizer/evaluator/testjudge"
	"github.com/optimizer-dev/optimizer/internal/testenv"
)

// titleRepo is a Go module whose Title capitalises each word. Base's tests
// cover only single words, so a multi-word bug goes unseen by them.
var titleRepo = map[string]string{
	"go.mod": "module example.com/title\n\ngo 1.22\n",
	"title/title.go": `package title

import "strings"

// Title capitalises the first letter of each space-separated word.
func Title(s string) string {
	words := strings.Split(s, " ")
	for i, w := range words {
		if w != "" {
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	return strings.Join(words, " ")
}
`,
	"title/title_test.go": `package title

import "testing"

func TestTitle(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"hello", "Hello"},
		{"", ""},
	} {
		if got := Title(tt.in); got != tt.want {
			t.Errorf("Title(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
`,
}

// fastTitle is a one-pass Title; with bug, it forgets to capitalise the
// word after the second space (an off-by-one in the multi-word path).
func fastTitle(bug bool) string {
	cond := "up"
	if bug {
		cond = "up && spaces != 2"
	}
	return `package title

// Title capitalises the first letter of each space-separated word.
func Title(s string) string {
	b := []byte(s)
	up, spaces := true, 0
	for i, c := range b {
		if c == ' ' {
			up = true
			spaces++
			continue
		}
		if ` + cond + ` && 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
		up = false
	}
	return string(b)
}
`
}

// TestRun_ContributedTests: two candidates for one function. The right one
// adds a multi-word case to the test table; the wrong one has an off-by-one
// that only that case sees. The wrong one must fail with kind test, naming
// the candidate whose test it failed, and must not win.
func TestRun_ContributedTests(t *testing.T) {
	h := newHarness(t, titleRepo)
	right := filesCand("right", map[string]string{
		"title/title.go": fastTitle(false),
		"title/title_test.go": strings.Replace(titleRepo["title/title_test.go"],
			`{"", ""},`, `{"", ""},
		{"a big red dog", "A Big Red Dog"},`, 1),
	})
	wrong := filesCand("wrong", map[string]string{"title/title.go": fastTitle(true)})
	rep, err := h.run(t, context.Background(), 2, Options{
		Candidates: []candidate.Candidate{right, wrong}, Bench: "none", Timeout: 5 * time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	r, w := find(rep, "right"), find(rep, "wrong")
	if r.Verdict != VerdictPassed {
		t.Errorf("right: verdict %s (%+v), want passed", r.Verdict, r.Failure)
	}
	if w.Verdict != VerdictFailed || w.Failure == nil || w.Failure.Kind != FailTest {
		t.Fatalf("wrong: verdict %s, failure %+v; want failed with kind test", w.Verdict, w.Failure)
	}
	if !strings.Contains(w.Failure.Message, "candidate right") || !strings.Contains(w.Failure.Message, "TestTitle") {
		t.Errorf("wrong's failure %q should name TestTitle and candidate right", w.Failure.Message)
	}
	if !strings.Contains(w.Failure.Output, "A Big red Dog") {
		t.Errorf("wrong's failure output should show the wrong result; got:\n%s", w.Failure.Output)
	}
	stored, err := h.db.Candidates(context.Background(), rep.Job)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range stored {
		if c.Name == "wrong" && (c.Verdict != "failed" || c.FailureKind != "test") {
			t.Errorf("stored wrong: verdict %s kind %s, want failed test", c.Verdict, c.FailureKind)
		}
	}
}

// TestRun_ContributedTestsFailingAtBase: a test that a candidate adds and
// that fails at base states nothing about base, and judges no one else.
func TestRun_ContributedTestsFailingAtBase(t *testing.T) {
	h := newHarness(t, titleRepo)
	// "strict" wants Title to trim, which base does not do; it trims.
	strict := filesCand("strict", map[string]string{
		"title/title.go": strings.Replace(titleRepo["title/title.go"], "words := strings.Split(s, \" \")",
			"words := strings.Split(strings.TrimSpace(s), \" \")", 1),
		"title/trim_test.go": "package title\n\nimport \"testing\"\n\nfunc TestTrim(t *testing.T) {\n\tif got := Title(\" x \"); got != \"X\" {\n\t\tt.Errorf(\"got %q\", got)\n\t}\n}\n",
	})
	fast := filesCand("fast", map[string]string{"title/title.go": fastTitle(false)})
	rep, err := h.run(t, context.Background(), 2, Options{
		Candidates: []candidate.Candidate{strict, fast}, Bench: "none", Timeout: 5 * time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"strict", "fast"} {
		if c := find(rep, name); c.Verdict != VerdictPassed {
			t.Errorf("%s: verdict %s (%+v), want passed", name, c.Verdict, c.Failure)
		}
	}
}

// sumRepo is a Go module with one function, its test and its benchmark.
var sumRepo = map[string]string{
	"go.mod": "module example.com/sum\n\ngo 1.22\n",
	"sum/sum.go": `package sum

// Sum adds xs.
func Sum(xs []int) int {
	s := 0
	for i := 0; i < len(xs); i++ {
		s += xs[i]
	}
	return s
}
`,
	"sum/sum_test.go": `package sum

import "testing"

func TestSum(t *testing.T) {
	if got := Sum([]int{1, 2, 3}); got != 6 {
		t.Errorf("Sum(1, 2, 3) = %d, want 6", got)
	}
	if got := Sum(nil); got != 0 {
		t.Errorf("Sum(nil) = %d, want 0", got)
	}
}

var data = make([]int, 1<<16)

func BenchmarkSum(b *testing.B) {
	for range b.N {
		Sum(data)
	}
}
`,
}

// judgeEditCandidates edit the judge three ways: one deletes the assertion
// its bug breaks, one halves its benchmark's work, one renames a test.
func judgeEditCandidates() []candidate.Candidate {
	test := sumRepo["sum/sum_test.go"]
	return []candidate.Candidate{
		filesCand("no-assert", map[string]string{
			"sum/sum.go": strings.Replace(sumRepo["sum/sum.go"], "i < len(xs)", "i < len(xs)-1", 1),
			"sum/sum_test.go": strings.Replace(test, `if got := Sum([]int{1, 2, 3}); got != 6 {
		t.Errorf("Sum(1, 2, 3) = %d, want 6", got)
	}
`, "", 1),
		}),
		filesCand("half-bench", map[string]string{
			"sum/sum_test.go": strings.Replace(test, "Sum(data)", "Sum(data[:len(data)/2])", 1),
		}),
		filesCand("rename", map[string]string{
			"sum/sum_test.go": strings.Replace(test, "func TestSum(", "func TestSumInts(", 1),
		}),
	}
}

// TestRun_JudgeEdits: the judged cannot edit the judge. By default each
// candidate is judged and measured with base's test file. The one that
// deleted its assertion fails, and the one that halved its benchmark
// measures as base does (about 1x, not 2x). The one that renamed a test
// passes. All three are flagged, in the report and the store.
// The same job again reuses every candidate's outcome from the result cache
// (cache.go), and must judge them the same. What the first staging learned
// of their test files is kept with the outcome.
func TestRun_JudgeEdits(t *testing.T) {
	testenv.Once(t)
	h := newHarness(t, sumRepo)
	first := ""
	for _, run := range []string{"first", "repeat"} {
		t.Run(run, func(t *testing.T) {
			rep := judgeEdits(t, h)
			for _, c := range rep.Candidates {
				if (run == "repeat") != (c.ReusedFrom == first && first != "") {
					t.Errorf("%s run: %s reused_from %q (first job %q)", run, c.Name, c.ReusedFrom, first)
				}
			}
			first = rep.Job
		})
	}
}

func judgeEdits(t *testing.T, h *harness) *Report {
	rep, err := h.run(t, context.Background(), 2, Options{
		Candidates: judgeEditCandidates(), Timeout: 5 * time.Minute, MaxPairs: 6, MinSpeedup: 0.05,
	})
	if err != nil {
		t.Fatal(err)
	}
	noAssert, half, rename := find(rep, "no-assert"), find(rep, "half-bench"), find(rep, "rename")
	if noAssert.Verdict != VerdictFailed || noAssert.Failure == nil || noAssert.Failure.Kind != FailTest {
		t.Errorf("no-assert: verdict %s, failure %+v; want failed with kind test", noAssert.Verdict, noAssert.Failure)
	} else if !strings.Contains(noAssert.Failure.Message, "--trust-candidate-tests") {
		t.Errorf("no-assert's failure %q should say it was judged with base's tests", noAssert.Failure.Message)
	}
	// Measured with its own benchmark, half-bench would be about 2x. With
	// base's test file it changes nothing that runs, so the scope by
	// execution measures nothing: it passes unmeasured. Were it measured,
	// it would be base against itself, about 1x.
	if half.Verdict == VerdictFailed || half.Speedup > 1.5 || (half.Speedup == 0 && half.Verdict != VerdictPassed) {
		t.Errorf("half-bench: verdict %s (%.2fx), want passed unmeasured, or base's benchmark (about 1x, not 2x)", half.Verdict, half.Speedup)
	}
	if rename.Verdict == VerdictFailed {
		t.Errorf("rename: failed %+v, want it to pass", rename.Failure)
	}
	for _, tt := range []struct {
		c    CandidateResult
		list func(*TestEdits) []string
		want string
	}{
		{noAssert, func(e *TestEdits) []string { return e.Changed }, "sum/sum_test.go:TestSum"},
		{half, func(e *TestEdits) []string { return e.Benchmarks }, "sum/sum_test.go:BenchmarkSum"},
		{rename, func(e *TestEdits) []string { return e.Renamed }, "sum/sum_test.go:TestSum -> TestSumInts"},
	} {
		e := tt.c.TestEdits
		if !e.Flagged() || e.Judged != "base" || !slices.Equal(tt.list(e), []string{tt.want}) {
			t.Errorf("%s: test edits %+v, want flagged %q, judged by base", tt.c.Name, e, tt.want)
		}
	}
	events, err := h.db.Events(context.Background(), rep.Job)
	if err != nil {
		t.Fatal(err)
	}
	flagged := map[string]bool{}
	for _, ev := range events {
		if ev.Kind == "test-edits" {
			flagged[ev.Candidate] = true
		}
	}
	if len(flagged) != 3 {
		t.Errorf("stored test-edits events for %v, want the three candidates", flagged)
	}
	return rep
}

// TestRun_TrustCandidateTests: with the flag, a candidate's own test files
// judge it, and the one that deleted its assertion passes.
func TestRun_TrustCandidateTests(t *testing.T) {
	h := newHarness(t, sumRepo)
	rep, err := h.run(t, context.Background(), 2, Options{
		Candidates: judgeEditCandidates()[:1], Bench: "none", Timeout: 5 * time.Minute, TrustCandidateTests: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	c := find(rep, "no-assert")
	if c.Verdict != VerdictPassed || c.TestEdits == nil || c.TestEdits.Judged != "candidate" {
		t.Errorf("no-assert with --trust-candidate-tests: verdict %s (%+v), edits %+v; want passed, judged by its own tests",
			c.Verdict, c.Failure, c.TestEdits)
	}
}

// TestRun_ContributedSubtests: contributed tests are judged subtest by
// subtest. right rewrites the table with t.Run cases: "multi" passes at base,
// "utf8" fails at base (base upper-cases half a rune). Only "multi" judges
// the others: wrong fails it; comment, which behaves as base does, fails
// "utf8" too and still passes.
func TestRun_ContributedSubtests(t *testing.T) {
	h := newHarness(t, titleRepo)
	right := filesCand("right", map[string]string{
		"title/title.go": fastTitle(false),
		"title/title_test.go": `package title

import "testing"

func TestTitle(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"one", "hello", "Hello"},
		{"empty", "", ""},
		{"multi", "a big red dog", "A Big Red Dog"},
		{"utf8", "élan vital", "élan Vital"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Title(tt.in); got != tt.want {
				t.Errorf("Title(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
`,
	})
	wrong := filesCand("wrong", map[string]string{"title/title.go": fastTitle(true)})
	comment := filesCand("comment", map[string]string{
		"title/title.go": strings.Replace(titleRepo["title/title.go"], "// Title capitalises", "// Title upper-cases", 1),
	})
	rep, err := h.run(t, context.Background(), 2, Options{
		Candidates: []candidate.Candidate{right, wrong, comment}, Bench: "none", Timeout: 5 * time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"right", "comment"} {
		if c := find(rep, name); c.Verdict != VerdictPassed {
			t.Errorf("%s: verdict %s (%+v), want passed", name, c.Verdict, c.Failure)
		}
	}
	w := find(rep, "wrong")
	if w.Verdict != VerdictFailed || w.Failure == nil || w.Failure.Kind != FailTest {
		t.Fatalf("wrong: verdict %s, failure %+v; want failed with kind test", w.Verdict, w.Failure)
	}
	if want := []string{"example.com/title/title.TestTitle/multi"}; !slices.Equal(w.Failure.Tests, want) {
		t.Errorf("wrong failed %q, want only %q (utf8 fails at base)", w.Failure.Tests, want)
	}
}

// TestRun_ContributedTestTimeout: a candidate that hangs only on the case
// another candidate adds fails with kind timeout, naming that candidate.
func TestRun_ContributedTestTimeout(t *testing.T) {
	testenv.Once(t) // waits out a --timeout
	h := newHarness(t, titleRepo)
	right := filesCand("right", map[string]string{
		"title/title.go": fastTitle(false),
		"title/title_test.go": strings.Replace(titleRepo["title/title_test.go"],
			`{"", ""},`, `{"", ""},
		{"a big red dog", "A Big Red Dog"},`, 1),
	})
	hang := filesCand("hang", map[string]string{"title/title.go": strings.Replace(fastTitle(false),
		"\tb := []byte(s)\n", "\tb := []byte(s)\n\tfor len(b) > 10 {\n\t}\n", 1)})
	rep, err := h.run(t, context.Background(), 2, Options{
		Candidates: []candidate.Candidate{right, hang}, Bench: "none", Timeout: 20 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	c := find(rep, "hang")
	if c.Verdict != VerdictFailed || c.Failure == nil || c.Failure.Kind != FailTimeout ||
		!strings.Contains(c.Failure.Message, "candidate right") {
		t.Errorf("hang: verdict %s, failure %+v; want failed with kind timeout, naming right", c.Verdict, c.Failure)
	}
}

// TestRun_OwnAddedTestsBeforeTested: a candidate judged with base's test
// files passes phase 1 before the tests it adds have run on it. So it is not
// announced as tested (watch prints that line at once). The tests it adds
// then fail it.
func TestRun_OwnAddedTestsBeforeTested(t *testing.T) {
	h := newHarness(t, titleRepo)
	c := filesCand("self-fail", map[string]string{
		"title/title.go":      fastTitle(false),
		"title/extra_test.go": "package title\n\nimport \"testing\"\n\nfunc TestExtra(t *testing.T) {\n\tif Title(\"x y\") != \"X y\" {\n\t\tt.Fatal(\"wants only the first word up\")\n\t}\n}\n",
	})
	events, kept := listen(EventTested)
	rep, err := h.run(t, context.Background(), 2, Options{
		Candidates: []candidate.Candidate{c}, Timeout: 5 * time.Minute, Events: events,
	})
	tested := kept()
	if err != nil {
		t.Fatal(err)
	}
	r := find(rep, "self-fail")
	if r.Verdict != VerdictFailed || r.Failure == nil || r.Failure.Kind != FailTest || !strings.Contains(r.Failure.Message, "fails the tests it adds: title.TestExtra") {
		t.Errorf("self-fail: verdict %s, failure %+v; want failed by the test it adds", r.Verdict, r.Failure)
	}
	for _, e := range tested {
		t.Errorf("a tested event for %q before the tests it adds ran", e.Candidate)
	}
}

// TestContributedFailure_JUnit judges runs of a whole JUnit suite with an
// author's test files laid over it. The author fails on a test that fails
// on it and not in base's own run. Another candidate fails on a test that
// passes at base with the author's files, and the failure names them.
func TestContributedFailure_JUnit(t *testing.T) {
	run := func(tests map[string]gotest.Status) *gotest.Run {
		r := &gotest.Run{Tests: tests, Packages: map[string]gotest.Status{"test_calc": gotest.StatusPass}, Output: map[string]string{}}
		for k, st := range tests {
			if st == gotest.StatusFail {
				r.Output[k] = "E   assert " + k
			}
		}
		return r
	}
	const pass, fail = gotest.StatusPass, gotest.StatusFail
	base := &baseline{done: make(chan struct{})}
	base.set(&testjudge.Outcome{JUnit: true, Tests: run(map[string]gotest.Status{
		"test_calc.test_total": pass, "test_calc.test_broken": fail})}, nil)
	j := &job{base: base}
	author := &cand{spec: candidate.Candidate{Name: "strict"}, contrib: &testedits.Contribution{Files: map[string][]byte{"test_calc.py": nil}}}
	other := &cand{spec: candidate.Candidate{Name: "sloppy"}}
	atBase := run(map[string]gotest.Status{"test_calc.test_total": pass, "test_calc.test_broken": fail, "test_calc.test_big": pass})

	// The author: a test that fails at base too says nothing of it.
	if f := j.contributedFailure(author, author, atBase, run(map[string]gotest.Status{
		"test_calc.test_total": pass, "test_calc.test_broken": fail, "test_calc.test_big": pass})); f != nil {
		t.Errorf("author passing all but base's failing test: %+v", f)
	}
	f := j.contributedFailure(author, author, atBase, run(map[string]gotest.Status{
		"test_calc.test_total": pass, "test_calc.test_broken": fail, "test_calc.test_big": fail}))
	if f == nil || !slices.Equal(f.Tests, []string{"test_calc.test_big"}) || !strings.Contains(f.Message, "fails the tests it adds") {
		t.Errorf("author failing its own test: %+v; want it named", f)
	}

	// Another candidate: failed or vanished, a test that passes at base
	// with the author's files fails it.
	for _, cand := range []map[string]gotest.Status{
		{"test_calc.test_total": pass, "test_calc.test_broken": fail, "test_calc.test_big": fail},
		{"test_calc.test_total": pass, "test_calc.test_broken": fail},
	} {
		f := j.contributedFailure(author, other, atBase, run(cand))
		if f == nil || f.Kind != FailTest || !slices.Equal(f.Tests, []string{"test_calc.test_big"}) {
			t.Fatalf("other with %v: %+v; want test_calc.test_big named", cand, f)
		}
		if want := "with the test files that candidate strict adds or changes (test_calc.py)"; !strings.Contains(f.Message, want) {
			t.Errorf("message %q does not say %q", f.Message, want)
		}
	}
	if f := j.contributedFailure(author, other, atBase, run(map[string]gotest.Status{
		"test_calc.test_total": pass, "test_calc.test_broken": fail, "test_calc.test_big": pass})); f != nil {
		t.Errorf("other passing what base passes: %+v", f)
	}
}
