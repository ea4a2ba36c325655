package evaluator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/profiler"
	"github.com/optimizer-dev/optimizer/store"
)

// TestJobReport_WinnerFromRows: a job cut off after its winner was chosen
// is shown with that winner, not "winner: none" above a winner row. Its row
// says winner, and the job's end was never recorded.
func TestJobReport_WinnerFromRows(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "optimizer.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Now()
	job := store.Job{ID: "20260101-000000-aaaaaaaaaaaa", Kind: "run", Repo: "/r", Base: "b", Parallel: 1, PID: 1,
		Config: []byte(`{}`), State: "running", Started: now}
	rows := []store.Candidate{
		{JobID: job.ID, Seq: 0, Name: "slow", Verdict: "pending", Updated: now},
		{JobID: job.ID, Seq: 1, Name: "fast", Verdict: "pending", Updated: now},
	}
	if err := db.StartJob(ctx, job, rows); err != nil {
		t.Fatal(err)
	}
	res, _ := json.Marshal(CandidateResult{Name: "fast", Verdict: VerdictWinner, Speedup: 2})
	rows[1].Verdict, rows[1].Speedup, rows[1].Result = "winner", 2, res
	if err := db.UpdateCandidate(ctx, rows[1]); err != nil {
		t.Fatal(err)
	}
	rep, err := loadReport(ctx, db, job.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Winner == nil || *rep.Winner != "fast" {
		t.Errorf("winner = %v, want fast", rep.Winner)
	}
}

// TestJobReport_Stored: a finished job's report comes back as written, its
// profile as a *profiler.Summary and its state the job's. A rebuilt one
// takes the threshold the store recorded. An unknown id is
// store.ErrNotFound.
func TestJobReport_Stored(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "optimizer.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Now()
	for _, id := range []string{"20260101-000000-aaaaaaaaaaaa", "20260101-000000-bbbbbbbbbbbb"} {
		job := store.Job{ID: id, Kind: "run", Repo: "/r", Base: "b", Parallel: 1, PID: 1,
			MinSpeedup: 0.125, State: "running", Started: now}
		if err := db.StartJob(ctx, job, []store.Candidate{{JobID: id, Name: "a", Verdict: "pending", Updated: now}}); err != nil {
			t.Fatal(err)
		}
	}
	winner := "a"
	written := &Report{Job: "20260101-000000-aaaaaaaaaaaa", Winner: &winner, MinSpeedup: 0.05,
		Profile:    &profiler.Summary{SampleType: "cpu"},
		Candidates: []CandidateResult{{Name: "a", Verdict: VerdictWinner, Speedup: 2}}}
	b, err := json.Marshal(written)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.FinishJob(ctx, written.Job, "finished", "a", b, ""); err != nil {
		t.Fatal(err)
	}

	rep, err := loadReport(ctx, db, "20260101-000000-a")
	if err != nil {
		t.Fatal(err)
	}
	if p := rep.Profile; p == nil || p.SampleType != "cpu" {
		t.Errorf("profile = %#v, want the *profiler.Summary written", rep.Profile)
	}
	if rep.State != "finished" || rep.Winner == nil || *rep.Winner != "a" || rep.Candidates[0].Speedup != 2 {
		t.Errorf("report = %+v, want the one written, finished", rep)
	}

	rebuilt, err := loadReport(ctx, db, "20260101-000000-bbbbbbbbbbbb")
	if err != nil {
		t.Fatal(err)
	}
	if rebuilt.MinSpeedup != 0.125 || rebuilt.State != "running" || rebuilt.Candidates[0].Verdict != VerdictPending {
		t.Errorf("rebuilt = %+v, want min speedup 0.125 as recorded, running, a pending", rebuilt)
	}

	if _, err := loadReport(ctx, db, "nosuchjob"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("loadReport(unknown) = %v, want store.ErrNotFound", err)
	}
}

// loadReport reads back the report of job id, or a unique prefix of it.
func loadReport(ctx context.Context, db *store.DB, id string) (*Report, error) {
	j, err := db.Job(ctx, id)
	if err != nil {
		return nil, err
	}
	return JobReport(ctx, db, j)
}

// TestJobReport_DamagedRow: a candidate row whose stored result or failure
// is no JSON makes the rebuilt report an error. The error names the
// candidate and the job. The row is not quietly rebuilt from its columns.
func TestJobReport_DamagedRow(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "optimizer.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Now()
	for i, damage := range []func(*store.Candidate){
		func(c *store.Candidate) { c.Result = []byte(`{"name": "a", "verdict":`) },
		func(c *store.Candidate) { c.Verdict, c.Failure = "failed", []byte(`[1]`) },
	} {
		id := fmt.Sprintf("20260101-000000-%012d", i)
		job := store.Job{ID: id, Kind: "run", Repo: "/r", Base: "b", Parallel: 1, PID: 1, State: "running", Started: now}
		row := store.Candidate{JobID: id, Name: "a", Verdict: "pending", Updated: now}
		if err := db.StartJob(ctx, job, []store.Candidate{row}); err != nil {
			t.Fatal(err)
		}
		damage(&row)
		if err := db.UpdateCandidate(ctx, row); err != nil {
			t.Fatal(err)
		}
		rep, err := loadReport(ctx, db, id)
		if want := "read candidate a of job " + id + ": its stored "; err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("damage %d: report %+v, err %v; want an error starting %q", i, rep, err, want)
		}
	}
}
