package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/optimizer-dev/optimizer/evaluator"
	"github.com/optimizer-dev/optimizer/store"
)

// TestJobReport_WinnerFromRows: a job cut off after its winner was chosen
// (its row says winner, the job's end was never recorded) is shown with
// that winner, not "winner: none" above a winner row.
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
	res, _ := json.Marshal(evaluator.CandidateResult{Name: "fast", Verdict: evaluator.VerdictWinner, Speedup: 2})
	rows[1].Verdict, rows[1].Speedup, rows[1].Result = "winner", 2, res
	if err := db.UpdateCandidate(ctx, rows[1]); err != nil {
		t.Fatal(err)
	}
	j, err := db.Job(ctx, job.ID)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := jobReport(ctx, db, j)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Winner == nil || *rep.Winner != "fast" {
		t.Errorf("winner = %v, want fast", rep.Winner)
	}
}
