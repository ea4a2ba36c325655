package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestDB_CreateJob(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	want := addJob(t, db, "job1")
	got, err := db.Job(ctx, "job1")
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "job", got, want)

	t.Run("Defaults", func(t *testing.T) {
		before := time.Now()
		if err := db.CreateJob(ctx, Job{ID: "bare"}); err != nil {
			t.Fatal(err)
		}
		got, err := db.Job(ctx, "bare")
		if err != nil {
			t.Fatal(err)
		}
		if got.State != "running" || got.Started.Before(before.Truncate(time.Second)) || !got.Finished.IsZero() {
			t.Errorf("job = %+v, want state running, started now, not finished", got)
		}
		if got.Config != nil || got.Report != nil {
			t.Errorf("config %q report %q, want nil", got.Config, got.Report)
		}
	})
	t.Run("Duplicate", func(t *testing.T) {
		if err := db.CreateJob(ctx, newJob("job1")); err == nil {
			t.Error("second job with the same id was accepted")
		}
	})
	t.Run("EmptyID", func(t *testing.T) {
		if err := db.CreateJob(ctx, Job{}); err == nil {
			t.Error("job with no id was accepted")
		}
	})
}

func TestDB_FinishJob(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	want := addJob(t, db, "job1")
	before := time.Now()
	report := []byte(`{"job":"job1","winner":"fast"}`)
	if err := db.FinishJob(ctx, "job1", "finished", "fast", report, "some error"); err != nil {
		t.Fatal(err)
	}
	got, err := db.Job(ctx, "job1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Finished.Before(before.Truncate(time.Second)) || got.Finished.Location() != time.UTC {
		t.Errorf("finished = %v, want now in UTC", got.Finished)
	}
	want.State, want.Winner, want.Report, want.Error, want.Finished = "finished", "fast", report, "some error", got.Finished
	equal(t, "finished job", got, want)

	t.Run("ErrNotFound", func(t *testing.T) {
		err := db.FinishJob(ctx, "nope", "finished", "", nil, "")
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("FinishJob of a missing job = %v, want ErrNotFound", err)
		}
	})
}

func TestDB_Job(t *testing.T) {
	db := newTestDB(t)
	for _, id := range []string{"abc123", "abc456", "abd789", "abd7"} {
		addJob(t, db, id)
	}
	for _, tt := range []struct {
		name, arg, want string
		err             error
	}{
		{name: "Exact", arg: "abc123", want: "abc123"},
		{name: "UniquePrefix", arg: "abc4", want: "abc456"},
		{name: "ExactAndPrefixOfAnother", arg: "abd7", want: "abd7"},
		{name: "PrefixOfExactOnly", arg: "abd78", want: "abd789"},
		{name: "ErrAmbiguous", arg: "abc", err: ErrAmbiguous},
		{name: "ErrNotFound", arg: "x", err: ErrNotFound},
		{name: "LongerThanID", arg: "abc1234", err: ErrNotFound},
		{name: "CaseSensitive", arg: "ABC123", err: ErrNotFound},
		{name: "Empty", arg: "", err: ErrNotFound},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.Job(context.Background(), tt.arg)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("Job(%q) = %v, want %v", tt.arg, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.ID != tt.want {
				t.Errorf("Job(%q).ID = %q, want %q", tt.arg, got.ID, tt.want)
			}
		})
	}
}

func TestDB_Jobs(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	// Started an hour apart, inserted out of order; with nanoseconds, so
	// that a format whose text order is not time order would show.
	for _, h := range []int{2, 0, 3, 1} {
		j := newJob(string(rune('a' + h)))
		j.Started = time.Date(2026, 1, 1, h, 0, 0, 100*h, time.UTC)
		if err := db.CreateJob(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		limit int
		want  string
	}{
		{0, "dcba"}, {-1, "dcba"}, {2, "dc"}, {10, "dcba"},
	} {
		jobs, err := db.Jobs(ctx, tt.limit)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, j := range jobs {
			got += j.ID
		}
		if got != tt.want {
			t.Errorf("Jobs(%d) = %q, want %q", tt.limit, got, tt.want)
		}
	}
}

func TestDB_MarkInterrupted(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	for _, j := range []struct {
		id, state string
		pid       int
	}{
		{"dead-running", "running", 1},
		{"live-running", "running", 2},
		{"dead-finished", "finished", 3},
		{"dead-failed", "failed", 4},
	} {
		job := newJob(j.id)
		job.State, job.PID = j.state, j.pid
		if err := db.CreateJob(ctx, job); err != nil {
			t.Fatal(err)
		}
	}
	alive := func(pid int, _ string) bool { return pid == 2 }
	n, err := db.MarkInterrupted(ctx, alive)
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("marked %d jobs, want 1", n)
	}
	for id, want := range map[string]string{
		"dead-running": "interrupted", "live-running": "running",
		"dead-finished": "finished", "dead-failed": "failed",
	} {
		j, err := db.Job(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if j.State != want {
			t.Errorf("job %s state %q, want %q", id, j.State, want)
		}
		if id == "dead-running" && (j.Finished.IsZero() || j.Error != "the optimizer process (PID 1) died before the job finished") {
			t.Errorf("interrupted job: finished %v, error %q", j.Finished, j.Error)
		}
	}
	if n, err := db.MarkInterrupted(ctx, alive); n != 0 || err != nil {
		t.Errorf("second MarkInterrupted = %d, %v; want 0, nil", n, err)
	}
}
