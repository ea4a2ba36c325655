package demo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/testdata"
)

func TestDir_WriteOutro(t *testing.T) {
	for _, tt := range []struct {
		name string
		kept bool
		want []string
	}{
		{"Deleted", false, []string{"/tmp/optimizer-demo-1 is deleted now", "optimizer demo --keep"}},
		{"Kept", true, []string{"kept in /tmp/optimizer-demo-1/repo", "optimizer history --repo /tmp/optimizer-demo-1/repo"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			d := Dir{DemoDir: testdata.DemoDir{Repo: "/tmp/optimizer-demo-1/repo"}, Path: "/tmp/optimizer-demo-1", Kept: tt.kept}
			d.WriteOutro(&b)
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("outro lacks %q:\n%s", w, b.String())
				}
			}
		})
	}
}

// TestDir_WriteIntro: the intro names where the demo is, every candidate
// with the verdict it is there to show, and the hanging one's timeout.
func TestDir_WriteIntro(t *testing.T) {
	var b strings.Builder
	Dir{DemoDir: testdata.DemoDir{Repo: "/d/repo", Candidates: "/d/candidates"}}.WriteIntro(&b)
	want := []string{"committed in /d/repo, and six candidate changes in /d/candidates", "  CANDIDATE   EXPECTED          WHAT IT DOES", "nocompile   failed (build)", "killed at the 15s timeout"}
	for _, c := range testdata.DemoCandidates {
		want = append(want, c.Name, c.About)
	}
	for _, w := range want {
		if !strings.Contains(b.String(), w) {
			t.Errorf("intro lacks %q:\n%s", w, b.String())
		}
	}
}

// TestWrite: without a directory, the demo goes to a temporary one that
// Remove deletes unless it is kept. A given directory is kept, and one that
// holds a demo already is refused.
func TestWrite(t *testing.T) {
	ctx := context.Background()
	t.Setenv("TMPDIR", t.TempDir())
	for _, keep := range []bool{false, true} {
		d, err := Write(ctx, "", keep, false)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(d.Repo, ".git")); err != nil || d.Kept != keep {
			t.Fatalf("keep %v: repo %s (%v), kept %v", keep, d.Repo, err, d.Kept)
		}
		if _, err := os.Stat(d.Candidates); !os.IsNotExist(err) {
			t.Errorf("candidates written without being asked: %v", err)
		}
		d.Remove()
		if _, err := os.Stat(d.Path); os.IsNotExist(err) == keep {
			t.Errorf("keep %v: after Remove, %s: %v", keep, d.Path, err)
		}
	}

	dir := t.TempDir()
	d, err := Write(ctx, dir, false, true)
	if err != nil {
		t.Fatal(err)
	}
	d.Remove()
	if _, err := os.Stat(d.Candidates); err != nil || !d.Kept {
		t.Errorf("a given directory was not kept: %v", err)
	}
	if _, err := Write(ctx, dir, false, true); !errors.Is(err, testdata.ErrExists) {
		t.Errorf("a second demo in %s: %v, want ErrExists", dir, err)
	}
}

// demoReport is a report of the demo's job with every verdict as EXPECTED
// says, then changed by change.
func demoReport(change func(map[string]*evaluator.CandidateResult)) *evaluator.Report {
	rep := &evaluator.Report{State: "finished", MinSpeedup: 0.05}
	byName := map[string]*evaluator.CandidateResult{}
	for _, dc := range testdata.DemoCandidates {
		c := evaluator.CandidateResult{Name: dc.Name, Verdict: evaluator.Verdict(dc.Verdict)}
		if dc.Failure != "" {
			c.Failure = &evaluator.Failure{Kind: evaluator.FailureKind(dc.Failure), Message: "it failed"}
		}
		rep.Candidates = append(rep.Candidates, c)
	}
	for i := range rep.Candidates {
		byName[rep.Candidates[i].Name] = &rep.Candidates[i]
	}
	if change != nil {
		change(byName)
	}
	return rep
}

// TestDir_Check: the demo passes when every verdict is as EXPECTED says.
// Otherwise it fails naming each one that differs and why. Timeouts on a
// loaded machine are said to be that.
func TestDir_Check(t *testing.T) {
	d := Dir{Timeout: 15 * time.Second}
	if err := d.Check(demoReport(nil)); err != nil {
		t.Errorf("every verdict as expected: %v", err)
	}
	timedOut := func(cs map[string]*evaluator.CandidateResult) {
		for _, n := range []string{"fast", "slower", "broken"} {
			cs[n].Verdict = evaluator.VerdictFailed
			cs[n].Failure = &evaluator.Failure{Kind: evaluator.FailTimeout, Message: "the test command ran past --timeout 15s"}
		}
	}
	err := d.Check(demoReport(timedOut))
	var me *MismatchError
	if !errors.As(err, &me) {
		t.Fatalf("Check = %v, want a *MismatchError", err)
	}
	for _, want := range []string{
		"fast: expected winner, got failed (timeout): timeout failure: the test command ran past --timeout 15s",
		"slower: expected slower, got failed (timeout)",
		"broken: expected failed (test), got failed (timeout)",
		"ran past 15s: the machine is loaded",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "hang:") || strings.Contains(err.Error(), "nocompile:") {
		t.Errorf("the error names a candidate whose verdict is as expected:\n%v", err)
	}
	notFaster := func(cs map[string]*evaluator.CandidateResult) {
		cs["fast"].Verdict, cs["fast"].Speedup, cs["fast"].CI = evaluator.VerdictNotFaster, 1.01, &[2]float64{0.9, 1.1}
	}
	err = d.Check(demoReport(notFaster))
	if err == nil || !strings.Contains(err.Error(), "fast: expected winner, got not-faster: 1.01×") || strings.Contains(err.Error(), "loaded") {
		t.Errorf("a not-faster winner: %v", err)
	}
}
