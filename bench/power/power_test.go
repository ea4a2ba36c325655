package main

import (
	"context"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestPlan: the A/A trials are spread among the A/B ones, every trial is
// planned once, and names are unique.
func TestPlan(t *testing.T) {
	o := options{K: 40, Steps: []int{2, 3, 4, 6, 8}, AA: 4}
	trials := plan(o)
	var ab, aa int
	seen := map[string]bool{}
	for _, tr := range trials {
		if seen[tr.Name] {
			t.Errorf("%s twice", tr.Name)
		}
		seen[tr.Name] = true
		if tr.M == 0 {
			aa++
		} else {
			ab++
		}
	}
	if ab != 5 || aa != 4 || trials[0].M == 0 || trials[len(trials)-1].M != 0 {
		t.Errorf("plan %+v: want 5 A/B and 4 A/A, A/A among them", trials)
	}
}

// TestPlan_AAOnly: -steps none plans A/A trials only, and -aa 0 with it is
// refused.
func TestPlan_AAOnly(t *testing.T) {
	o, err := parseFlags([]string{"-steps", "none", "-aa", "12"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	trials := plan(o)
	if len(trials) != 12 || slices.ContainsFunc(trials, func(tr trial) bool { return tr.M != 0 }) {
		t.Errorf("plan %+v: want 12 A/A trials", trials)
	}
	if _, err := parseFlags([]string{"-steps", "none", "-aa", "0"}, io.Discard); err == nil {
		t.Error("-steps none -aa 0: no error")
	}
}

// TestWriteBase: the fixture's base gets the wrapper, the original body
// under its new name, and both parse; a candidate's file differs from
// base's in its count and comment only.
func TestWriteBase(t *testing.T) {
	tg, _ := targetByName("fixture")
	dir := t.TempDir()
	pkg, err := writeBase(context.Background(), tg, dir, 40)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(dir, tg.Pkg, tg.File))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(src), tg.Func) || !strings.Contains(string(src), "func "+tg.Once+"(") {
		t.Errorf("%s still declares %q, or lacks %s", tg.File, tg.Func, tg.Once)
	}
	rep, err := os.ReadFile(filepath.Join(dir, tg.Pkg, "repeat.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range [][]byte{rep, tg.repeatFile(pkg, 38, "t01-m2")} {
		if _, err := parser.ParseFile(token.NewFileSet(), "repeat.go", b, 0); err != nil {
			t.Errorf("%v:\n%s", err, b)
		}
	}
	if !strings.Contains(string(rep), "const repeatReps = 40") || !strings.Contains(string(tg.repeatFile(pkg, 38, "x")), "const repeatReps = 38") {
		t.Errorf("repeat.go:\n%s", rep)
	}
}

// TestSamples: -samples scales the most pairs to the default's time cost,
// and the schedule runs every setting once a rep, rotated.
func TestSamples(t *testing.T) {
	st, err := parseSamples("300ms,150ms,75ms")
	if err != nil {
		t.Fatal(err)
	}
	var pairs []int
	for _, s := range st {
		pairs = append(pairs, s.MaxPairs)
	}
	if !slices.Equal(pairs, []int{30, 60, 120}) {
		t.Errorf("most pairs %v, want 30, 60, 120", pairs)
	}
	if _, err := parseSamples("0s"); err == nil {
		t.Error("0s accepted")
	}
	jobs := schedule(options{Samples: st, Reps: 2})
	if len(jobs) != 6 || jobs[0].setting != st[0] || jobs[3].setting != st[1] || jobs[5].setting != st[0] || jobs[3].Rep != 1 {
		t.Errorf("schedule %v", jobs)
	}
}

// TestWriteSettings_AA: over reps, the A/A line counts every rep's trials
// but each benchstat result once, since it runs once per trial.
func TestWriteSettings_AA(t *testing.T) {
	o := options{K: 40, AA: 2, Reps: 2, Samples: []setting{{}}}
	res := map[job][]result{}
	for rep := range o.Reps {
		for i, tr := range plan(o) {
			r := result{trial: tr, Verdict: "not-faster", Pairs: 8, BenchSecs: 9, JobSecs: 15, LoadStart: "1.00 1.00 1.00"}
			if i == 0 {
				r.Stat = benchstatResult{Delta: "~", Base: 1, Cand: 1}
			}
			if rep == 1 && i == 1 {
				r.Verdict = "faster"
			}
			res[job{o.Samples[0], rep}] = append(res[job{o.Samples[0], rep}], r)
		}
	}
	var b strings.Builder
	writeSettings(&b, o, target{Name: "uuid"}, res)
	for _, want := range []string{"called 1 of 4, 25.0%", "1 of 4, 25.0% [", "benchstat, on 1 of these trials: 0 of 1", "0.25 machine minutes"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in:\n%s", want, b.String())
		}
	}
}

// TestShares: a job alone gets its wall time; two jobs at once share the
// time they overlap.
func TestShares(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	sh := newShares()
	a := sh.start(at(0))
	if got := sh.stop(a, at(10)); got != 10 {
		t.Errorf("alone: %v s, want 10", got)
	}
	// b runs 20–40, c 30–60: b has 10 alone and 10 shared, c 10 shared and 20 alone.
	b := sh.start(at(20))
	c := sh.start(at(30))
	if got := sh.stop(b, at(40)); got != 15 {
		t.Errorf("b: %v s, want 15", got)
	}
	if got := sh.stop(c, at(60)); got != 25 {
		t.Errorf("c: %v s, want 25", got)
	}
}

// TestWritePower: the smallest change said is the smallest called faster
// in 80% of its trials with every larger one; a size below that does not
// count when a larger one fell short.
func TestWritePower(t *testing.T) {
	o := options{K: 40}
	for _, tc := range []struct {
		called map[int]int // of 10 trials at m = 3, 4, 5
		want   string
	}{
		{map[int]int{3: 3, 4: 9, 5: 10}, "and every larger one too: 1.111×."},
		{map[int]int{3: 9, 4: 5, 5: 10}, "and every larger one too: 1.143×."},
		{map[int]int{3: 9, 4: 9, 5: 7}, "and every larger one too: none."},
	} {
		s := summary{AB: 30, ABPairs: 300, ABJobSecs: 30 * 18, CalledAt: tc.called, TriedAt: map[int]int{3: 10, 4: 10, 5: 10}}
		var b strings.Builder
		writePower(&b, o, setting{}, s)
		if !strings.Contains(b.String(), tc.want) || !strings.Contains(b.String(), "1.081×: "+fmt.Sprint(tc.called[3])+" of 10") {
			t.Errorf("called %v:\n%s\nwant %q", tc.called, b.String(), tc.want)
		}
	}
}

// TestParseFlags_AtOnce: -at-once needs a positive count, and 1 with
// -interleave, whose jobs run one at a time by design. -ab-every over 1
// needs both kinds of trial, or some job would have none.
func TestParseFlags_AtOnce(t *testing.T) {
	for _, args := range [][]string{{"-at-once", "0"}, {"-at-once", "2", "-interleave"}, {"-ab-every", "0"},
		{"-ab-every", "2", "-steps", "none"}, {"-ab-every", "2", "-aa", "0"}} {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
	if o, err := parseFlags([]string{"-at-once", "4", "-reps", "8"}, io.Discard); err != nil || o.AtOnce != 4 {
		t.Errorf("-at-once 4: %+v, %v", o.AtOnce, err)
	}
}

// TestAATrials: the A/A-only jobs of -ab-every get the A/A candidates
// and no other.
func TestAATrials(t *testing.T) {
	cands, dst := t.TempDir(), filepath.Join(t.TempDir(), "aa")
	trials := plan(options{K: 40, Steps: []int{4, 6}, AA: 3})
	for _, tr := range trials {
		if err := os.MkdirAll(filepath.Join(cands, tr.Name, "p"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(cands, tr.Name, "p", "repeat.go"), []byte(tr.Name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := aaTrials(trials, cands, dst)
	if err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dst)
	if len(got) != 3 || len(ents) != 3 {
		t.Fatalf("%d trials, %d directories: want the 3 A/A ones", len(got), len(ents))
	}
	for _, tr := range got {
		b, err := os.ReadFile(filepath.Join(dst, tr.Name, "p", "repeat.go"))
		if tr.M != 0 || err != nil || string(b) != tr.Name {
			t.Errorf("%+v: %q, %v", tr, b, err)
		}
	}
}
