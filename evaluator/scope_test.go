package evaluator

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator/candidate"
	"github.com/optimizer-dev/optimizer/internal/testenv"
	"github.com/optimizer-dev/optimizer/store"
)

// manyRepo is a package with 30 benchmarks: BenchmarkAHot and BenchmarkBHot
// execute Hot, the 28 others Cold. Unused runs in no benchmark. The two
// run first, so that a coverage run that inherits its predecessors'
// counts would say the 28 execute Hot too.
var manyRepo = func() map[string]string {
	var tests strings.Builder
	tests.WriteString("package many\n\nimport \"testing\"\n\nvar sink int\n\n")
	tests.WriteString("func BenchmarkAHot(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\tsink = Hot(i)\n\t}\n}\n\n")
	tests.WriteString("func BenchmarkBHot(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\tsink = Hot(i + 1)\n\t}\n}\n")
	for i := range 28 {
		fmt.Fprintf(&tests, "\nfunc BenchmarkCold%02d(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\tsink = Cold(i, %d)\n\t}\n}\n", i, i)
	}
	return map[string]string{
		"go.mod":            "module example.com/many\n\ngo 1.22\n",
		"many/many.go":      manyGo,
		"many/many_test.go": tests.String(),
	}
}()

const manyGo = `package many

// Hot is what two benchmarks execute.
func Hot(n int) int {
	return n*n + 1
}

// Cold is what the other benchmarks execute.
func Cold(n, k int) int {
	return n ^ k
}

// Unused runs in no benchmark.
func Unused(n int) int {
	return n - 1
}

var table = [4]int{1, 2, 3, 4}
`

// scopeEvents returns the scope events of a job, by candidate ("": the
// job's), and the candidates in the order they were said.
func scopeEvents(t *testing.T, db *store.DB, job string) (map[string]string, []string) {
	t.Helper()
	evs, err := db.Events(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	var order []string
	for _, e := range evs {
		if e.Kind == string(EventScope) {
			out[e.Candidate] = e.Message
			order = append(order, e.Candidate)
		}
	}
	return out, order
}

// topNames are the top-level benchmarks a candidate measured.
func topNames(c CandidateResult) []string {
	var out []string
	for _, b := range c.Benchmarks {
		top, _, _ := strings.Cut(b.Name, "/")
		if !slices.Contains(out, top) {
			out = append(out, top)
		}
	}
	slices.Sort(out)
	return out
}

// TestRun_Scope checks issue 36 item 1 on real Go benchmarks, 30 of them. A
// change to the function 2 execute measures those 2, and says so before
// measuring. A change to a function none executes measures none, says so
// and names the closest. A --bench-filter wins. In the long test, a change
// outside any function and --all measure all 30.
func TestRun_Scope(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and benchmarks a Go module")
	}
	shortSamples(t, 5*time.Millisecond)
	h := newHarness(t, manyRepo)
	ctx := context.Background()
	edit := func(name, old, new string) candidate.Candidate {
		if !strings.Contains(manyGo, old) {
			t.Fatalf("%q is not in many.go", old)
		}
		return filesCand(name, map[string]string{"many/many.go": strings.Replace(manyGo, old, new, 1)})
	}
	opts := Options{Test: "true", MinPairs: 2, MaxPairs: 2, Timeout: 2 * time.Minute}
	opts.Candidates = []candidate.Candidate{
		edit("hot", "n*n + 1", "n*n + 2"),
		edit("unused", "n - 1", "n - 2"),
	}
	rep, err := h.run(t, ctx, 1, opts)
	if err != nil {
		t.Fatal(err)
	}
	said, order := scopeEvents(t, h.db, rep.Job)
	t.Logf("scope events: %q", said)
	// As phase 2 starts, once: how every candidate's benchmarks are chosen.
	if s := said[""]; !slices.Equal(order, []string{"", "hot", "unused"}) ||
		!strings.Contains(s, "measures each of 2 candidates on the benchmarks that execute a function it changes") {
		t.Errorf("scope events in the order %q, the job's %q; want the job's first, on the benchmarks that execute a changed function, then each candidate's once", order, s)
	}

	hot := rep.Candidates[0]
	if got, want := topNames(hot), []string{"BenchmarkAHot", "BenchmarkBHot"}; !slices.Equal(got, want) {
		t.Errorf("hot measured %q; want %q", got, want)
	}
	if s := said["hot"]; !strings.Contains(s, "measures 2 of 30 benchmarks (BenchmarkAHot, BenchmarkBHot)") ||
		!strings.Contains(s, "Hot (many/many.go:4)") || !strings.Contains(s, "about ") {
		t.Errorf("hot's scope event: %q; want the 2 benchmarks, the function they execute and a time", s)
	}

	unused := rep.Candidates[1]
	if unused.Verdict != VerdictPassed || len(unused.Benchmarks) != 0 {
		t.Errorf("unused: %s with %d benchmarks; want passed, none measured", unused.Verdict, len(unused.Benchmarks))
	}
	for _, s := range []string{unused.Note, said["unused"]} {
		if !strings.Contains(s, "no benchmark executes Unused (many/many.go:14)") || !strings.Contains(s, "the closest benchmarks are") {
			t.Errorf("unused's note or event: %q; want that no benchmark executes Unused, and the closest", s)
		}
	}

	t.Run("Filter", func(t *testing.T) {
		opts := opts
		opts.Candidates = []candidate.Candidate{edit("filter", "n*n + 1", "n*n + 3")}
		opts.BenchFilter = "Cold0[0-2]"
		rep, err := h.run(t, ctx, 1, opts)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := topNames(rep.Candidates[0]), []string{"BenchmarkCold00", "BenchmarkCold01", "BenchmarkCold02"}; !slices.Equal(got, want) {
			t.Errorf("--bench-filter measured %q; want %q", got, want)
		}
		// The filter's benchmarks are every candidate's: said once, as
		// phase 2 starts, with why and a time.
		said, order := scopeEvents(t, h.db, rep.Job)
		if s := said[""]; len(order) != 1 ||
			!strings.Contains(s, "measures 3 benchmarks declared at base (BenchmarkCold00, BenchmarkCold01, BenchmarkCold02) for each candidate") ||
			!strings.Contains(s, `--bench-filter "Cold0[0-2]" selects them; about `) {
			t.Errorf("scope events %q; want one, the job's, naming the 3, the filter and a time", said)
		}
	})

	t.Run("Wide", func(t *testing.T) {
		testenv.Once(t) // measures 30 benchmarks twice
		opts := opts
		opts.Candidates = []candidate.Candidate{edit("var", "{1, 2, 3, 4}", "{4, 3, 2, 1}")}
		rep, err := h.run(t, ctx, 1, opts)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(topNames(rep.Candidates[0])); n != 30 {
			t.Errorf("a change outside any function measured %d benchmarks; want all 30", n)
		}
		if said, _ := scopeEvents(t, h.db, rep.Job); !strings.Contains(said["var"], "measures all 30") || !strings.Contains(said["var"], "many/many.go:18: outside any function") {
			t.Errorf("its scope event: %q; want all 30, and the line outside any function", said["var"])
		}
		opts.Candidates = []candidate.Candidate{edit("all", "n*n + 1", "n*n + 3")}
		opts.All = true
		if rep, err = h.run(t, ctx, 1, opts); err != nil {
			t.Fatal(err)
		}
		if n := len(topNames(rep.Candidates[0])); n != 30 {
			t.Errorf("--all measured %d benchmarks; want all 30", n)
		}
		if said, order := scopeEvents(t, h.db, rep.Job); len(order) != 1 ||
			!strings.Contains(said[""], "measures 30 benchmarks declared at base (BenchmarkAHot, ") || !strings.Contains(said[""], ": --all; about ") {
			t.Errorf("--all's scope events %q; want one, the job's, naming the 30, --all and a time", said)
		}
	})
}

// TestSayScope_Once: a candidate's scope is said once, though the noise
// check scopes the first candidate before its own turn scopes it again.
func TestSayScope_Once(t *testing.T) {
	ctx := context.Background()
	db := jobStore(t)
	events := make(chan Event, 4)
	j := &job{id: "job1", db: db, opts: Options{Events: events}}
	c := &cand{spec: candidate.Candidate{Name: "hot"}}
	j.sayScope(ctx, c, "measures 2 of 30 benchmarks") // the noise check's
	j.sayScope(ctx, c, "measures 2 of 30 benchmarks") // its turn's
	if n := len(events); n != 1 {
		t.Errorf("%d scope events for one candidate; want 1", n)
	}
	if said, order := scopeEvents(t, db, "job1"); len(order) != 1 || said["hot"] == "" {
		t.Errorf("the store's scope events %q; want hot's once", order)
	}
}
