package shard

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/optimizer-dev/optimizer/store"
)

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Spec
		err  string // a part of the message; "" for none
	}{
		{in: "1/1", want: Spec{1, 1}},
		{in: "2/5", want: Spec{2, 5}},
		{in: "0/3", err: "K must be 1 to 3"},
		{in: "3/2", err: "K must be 1 to 2"},
		{in: "1/0", err: "at least 1"},
		{in: "x", err: "want K/N"},
		{in: "2", err: "want K/N"},
		{in: "a/b", err: "want K/N"},
	} {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Parse(tt.in)
			switch {
			case tt.err == "" && (err != nil || got != tt.want):
				t.Errorf("Parse(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err) || !errors.Is(err, ErrBadSpec)):
				t.Errorf("Parse(%q) error = %v; want one saying %q", tt.in, err, tt.err)
			}
		})
	}
}

func TestAuto(t *testing.T) {
	for _, tt := range []struct {
		name, index, count string
		want               Spec
		err                string
	}{
		{name: "first", index: "0", count: "3", want: Spec{1, 3}},
		{name: "last", index: "2", count: "3", want: Spec{3, 3}},
		{name: "unset", index: "", count: "3", err: "JOB_COMPLETION_INDEX is not set"},
		{name: "past", index: "3", count: "3", err: "indexes 0 to 2"},
		{name: "nocount", index: "0", count: "", err: "OPTIMIZER_SHARDS"},
		{name: "garbage", index: "x", count: "3", err: "not a shard index"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Auto("JOB_COMPLETION_INDEX", tt.index, tt.count)
			switch {
			case tt.err == "" && (err != nil || got != tt.want):
				t.Errorf("Auto = %v, %v; want %v", got, err, tt.want)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("Auto error = %v; want one saying %q", err, tt.err)
			}
		})
	}
}

// TestOf: every content id belongs to exactly one shard, the assignment
// does not depend on the order ids come in, and 10,000 ids leave no shard
// of 100 empty.
func TestOf(t *testing.T) {
	counts := make([]int, 101)
	for i := range 10000 {
		id := fmt.Sprintf("%040x", i*7919)
		k := Of(id, 100)
		if k < 1 || k > 100 {
			t.Fatalf("Of(%s, 100) = %d", id, k)
		}
		counts[k]++
		held := 0
		for j := 1; j <= 100; j++ {
			if (Spec{j, 100}).Holds(id) {
				held++
			}
		}
		if held != 1 {
			t.Fatalf("%s is held by %d shards", id, held)
		}
	}
	if slices.Contains(counts[1:], 0) {
		t.Errorf("a shard of 100 got none of 10,000 ids: %v", counts[1:])
	}
	if Of("abc", 7) != Of("abc", 7) || !(Spec{}).Holds("abc") {
		t.Error("Of is not a function of its arguments, or the zero Spec does not hold everything")
	}
}

// newShardStore writes the store of shard k of n of a synthetic job over
// cands (name -> content id). The candidates in shard k passed, and those
// not in it are pending. When not nil, change alters one candidate's
// outcome.
func newShardStore(t *testing.T, dir string, k, n int, base string, cands []string, change func(*store.Candidate)) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(dir, fmt.Sprintf("shard-%d-of-%d-%s.db", k, n, base))
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	id := fmt.Sprintf("job-%d-%s", k, base)
	var rows []store.Candidate
	for i, name := range cands {
		c := store.Candidate{JobID: id, Seq: i, Name: name, ContentID: "id-" + name, Verdict: pending}
		if (Spec{k, n}).Holds(c.ContentID) {
			c.Verdict = "passed"
			c.Change = []byte(`{"name":"` + name + `"}`)
		}
		if change != nil {
			change(&c)
		}
		rows = append(rows, c)
	}
	if err := db.StartJob(ctx, store.Job{ID: id, Kind: "run", Repo: "/r", Base: base, Parallel: 1, State: "finished",
		Shards: Spec{k, n}.String(), Test: "sh test.sh"}, rows); err != nil {
		t.Fatal(err)
	}
	if err := db.AddTestResults(ctx, []store.TestResult{{JobID: id, Candidate: "", Package: "p", Test: "T", Status: "pass"}}); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestMerge(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	names := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	var ins []string
	for k := 1; k <= 3; k++ {
		ins = append(ins, newShardStore(t, dir, k, 3, "base1", names, nil))
	}
	out := filepath.Join(dir, "out.db")

	t.Run("Partial", func(t *testing.T) {
		res, err := Merge(ctx, out, ins[:2])
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Missing, []Spec{{3, 3}}) || len(res.Unjudged) == 0 {
			t.Errorf("after shards 1 and 2: missing %v, unjudged %v; want shard 3/3 missing and some unjudged", res.Missing, res.Unjudged)
		}
	})
	t.Run("Whole", func(t *testing.T) {
		res, err := Merge(ctx, out, ins)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Missing) != 0 || len(res.Unjudged) != 0 || res.Candidates != len(names) {
			t.Errorf("after every shard: %+v", res)
		}
		db, err := store.OpenReadOnly(ctx, out)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		cands, err := db.Candidates(ctx, res.Job)
		if err != nil {
			t.Fatal(err)
		}
		if len(cands) != len(names) {
			t.Fatalf("merged store has %d candidates, want %d", len(cands), len(names))
		}
		for _, c := range cands {
			if c.Verdict != "passed" || c.Change == nil {
				t.Errorf("%s: verdict %s, change %s; want passed with its change", c.Name, c.Verdict, c.Change)
			}
		}
		base, err := db.TestResults(ctx, res.Job, "")
		if err != nil || len(base) != 1 {
			t.Errorf("base's test results: %v, %v; want one copy", base, err)
		}
	})
	t.Run("Idempotent", func(t *testing.T) {
		res, err := Merge(ctx, out, append(slices.Clone(ins), ins[0]))
		if err != nil || len(res.Added) != 0 {
			t.Fatalf("merging again: %+v, %v; want nothing added", res, err)
		}
		db, _ := store.OpenReadOnly(ctx, out)
		defer db.Close()
		jobs, _ := db.Jobs(ctx, 0)
		base, _ := db.TestResults(ctx, res.Job, "")
		if len(jobs) != 1 || len(base) != 1 {
			t.Errorf("after merging again: %d jobs, %d base test results; want 1 and 1", len(jobs), len(base))
		}
	})
	t.Run("Conflict", func(t *testing.T) {
		// shard 1 again, run elsewhere: one of its candidates failed there.
		var flipped string
		other := newShardStore(t, t.TempDir(), 1, 3, "base1", names, func(c *store.Candidate) {
			if c.Verdict == "passed" && flipped == "" {
				flipped = c.Name
				c.Verdict, c.FailureKind = "failed", "test"
			}
		})
		_, err := Merge(ctx, out, []string{other})
		var ce *ConflictError
		if !errors.As(err, &ce) || len(ce.Conflicts) != 1 || ce.Conflicts[0].Candidate != flipped {
			t.Fatalf("a conflicting store: err = %v; want a conflict on %s", err, flipped)
		}
		if !strings.Contains(err.Error(), "passed in") || !strings.Contains(err.Error(), "failed (test) in") {
			t.Errorf("the conflict does not name both outcomes: %v", err)
		}
	})
	t.Run("DifferentJobs", func(t *testing.T) {
		for _, tt := range []struct {
			name, in, want string
		}{
			{"base", newShardStore(t, t.TempDir(), 1, 3, "base2", names, nil), "base base2"},
			{"count", newShardStore(t, t.TempDir(), 1, 2, "base1", names, nil), "2 shards, not 3"},
			{"set", newShardStore(t, t.TempDir(), 1, 3, "base1", names[1:], nil), "no candidate a"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				_, err := Merge(ctx, out, []string{tt.in})
				if !errors.Is(err, ErrDifferentJobs) || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("err = %v; want ErrDifferentJobs saying %q", err, tt.want)
				}
			})
		}
	})
	t.Run("Missing", func(t *testing.T) {
		_, err := Merge(ctx, filepath.Join(t.TempDir(), "o.db"), []string{filepath.Join(dir, "nope.db")})
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "nope.db") {
			t.Errorf("err = %v; want one naming nope.db as missing", err)
		}
	})
}
