package store

import (
	"context"
	"errors"
	"testing"
)

// TestDB_RenameJob: a job and every row that refers to it take the new
// id; the old id is free for a new job.
func TestDB_RenameJob(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	addJob(t, db, "j1")
	if err := db.AddEvent(ctx, Event{JobID: "j1", Kind: "start", Candidate: "a"}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutCacheEntry(ctx, CacheEntry{Key: "k", Kind: "tests", JobID: "j1", Candidate: "a", Value: []byte("{}")}); err != nil {
		t.Fatal(err)
	}
	if err := db.RenameJob(ctx, "j1", "j1~1"); err != nil {
		t.Fatal(err)
	}
	if j, err := db.Job(ctx, "j1~1"); err != nil || j.State != "running" {
		t.Errorf("the renamed job: %+v, %v", j, err)
	}
	if evs, err := db.Events(ctx, "j1~1"); err != nil || len(evs) != 1 {
		t.Errorf("the renamed job's events: %d, %v; want 1", len(evs), err)
	}
	if e, err := db.CacheEntry(ctx, "tests", "k"); err != nil || e.JobID != "j1~1" {
		t.Errorf("the renamed job's cache entry: %+v, %v", e, err)
	}
	addJob(t, db, "j1") // the id is free again
	if evs, err := db.Events(ctx, "j1"); err != nil || len(evs) != 0 {
		t.Errorf("the new job j1 has %d events (%v), want none", len(evs), err)
	}
	if err := db.RenameJob(ctx, "none", "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("renaming no job: %v, want ErrNotFound", err)
	}
	if err := db.RenameJob(ctx, "j1", "j1~1"); err == nil {
		t.Error("renamed a job onto an id in use")
	}
}
