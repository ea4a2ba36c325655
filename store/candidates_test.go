package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

func newCandidate(jobID string, seq int, name string) Candidate {
	return Candidate{
		JobID: jobID, Seq: seq, Name: name, ContentID: "cid-" + name, Source: "dir", Parent: "p",
		Explanation: "unrolled", Verdict: "pending", Updated: testTime.UTC(),
	}
}

func TestDB_Candidates(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	addJob(t, db, "job1")
	addJob(t, db, "job2")
	full := newCandidate("job1", 1, "full")
	full.DuplicateOf, full.Speedup, full.CILow, full.CIHigh = "other", 1.5, 1.25, 1.75
	full.Pairs, full.Seconds, full.FailureKind = 8, 2.5, "test"
	full.Failure, full.Result = []byte(`{"kind":"test"}`), []byte(`{"name":"full"}`)
	// Inserted out of Seq order, and with a name order unlike Seq order.
	rows := []Candidate{newCandidate("job1", 2, "a"), full, newCandidate("job1", 0, "z"), newCandidate("job2", 0, "b")}
	if err := db.AddCandidates(ctx, rows); err != nil {
		t.Fatal(err)
	}
	got, err := db.Candidates(ctx, "job1")
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "candidates", got, []Candidate{rows[2], full, rows[0]})

	t.Run("DuplicateName", func(t *testing.T) {
		err := db.AddCandidates(ctx, []Candidate{newCandidate("job2", 5, "c"), newCandidate("job2", 6, "b")})
		if err == nil {
			t.Fatal("duplicate candidate name was accepted")
		}
		got, err := db.Candidates(ctx, "job2")
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 {
			t.Errorf("job2 has %d candidates after a failed batch, want 1: a batch is one transaction", len(got))
		}
	})
	t.Run("UnknownJob", func(t *testing.T) {
		if err := db.AddCandidates(ctx, []Candidate{newCandidate("nope", 0, "a")}); err == nil {
			t.Error("candidate of a missing job was accepted")
		}
	})
}

func TestDB_UpdateCandidate(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	addJob(t, db, "job1")
	rows := []Candidate{newCandidate("job1", 0, "a"), newCandidate("job1", 1, "b")}
	if err := db.AddCandidates(ctx, rows); err != nil {
		t.Fatal(err)
	}
	up := Candidate{
		JobID: "job1", Seq: 99, Name: "a", ContentID: "new", Source: "ref", Parent: "b", Explanation: "e",
		Verdict: "winner", DuplicateOf: "d", Speedup: 2, CILow: 1.5, CIHigh: 2.5, Pairs: 12, Seconds: 9.5,
		FailureKind: "k", Failure: []byte(`{}`), Result: []byte(`{"verdict":"winner"}`),
		Updated: testTime.Add(time.Hour).UTC(),
	}
	if err := db.UpdateCandidate(ctx, up); err != nil {
		t.Fatal(err)
	}
	got, err := db.Candidates(ctx, "job1")
	if err != nil {
		t.Fatal(err)
	}
	up.Seq = 0 // Seq is not updated
	equal(t, "candidates", got, []Candidate{up, rows[1]})

	t.Run("ErrNotFound", func(t *testing.T) {
		for _, c := range []Candidate{newCandidate("job1", 0, "nope"), newCandidate("nope", 0, "a")} {
			if err := db.UpdateCandidate(ctx, c); !errors.Is(err, ErrNotFound) {
				t.Errorf("UpdateCandidate(%s/%s) = %v, want ErrNotFound", c.JobID, c.Name, err)
			}
		}
	})
}
