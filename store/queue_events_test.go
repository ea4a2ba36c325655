package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
)

// TestQueueEvents: events are kept with their job, read back in order
// after any id, survive a reopen, and go with the job's row.
func TestQueueEvents(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "daemon.db")
	db := openTestDB(t, path)
	for _, id := range []string{"a", "b"} {
		if _, err := db.Enqueue(ctx, QueuedJob{ID: id, Repo: "/r", Base: "b", Request: []byte("{}")}); err != nil {
			t.Fatal(err)
		}
	}
	var evs []QueueEvent
	for i := uint64(1); i <= 6; i++ {
		job := "a"
		if i%2 == 0 {
			job = "b"
		}
		evs = append(evs, QueueEvent{Seq: 100 + i, Job: job, Data: []byte(fmt.Sprintf(`{"n":%d}`, i))})
	}
	if err := db.AddQueueEvents(ctx, evs); err != nil {
		t.Fatal(err)
	}
	if err := db.AddQueueEvents(ctx, []QueueEvent{{Seq: 200, Job: "nobody", Data: []byte("{}")}}); err == nil {
		t.Error("an event of a job not in the queue was recorded")
	}
	db.Close()
	db = openTestDB(t, path)
	seqs := func(job string, after uint64, limit int) string {
		t.Helper()
		got, err := db.QueueEvents(ctx, job, after, limit)
		if err != nil {
			t.Fatal(err)
		}
		s := ""
		for _, e := range got {
			s += fmt.Sprintf("%d%s ", e.Seq, e.Job)
		}
		return s
	}
	for _, tt := range []struct {
		job   string
		after uint64
		limit int
		want  string
	}{
		{"a", 0, 0, "101a 103a 105a "},
		{"a", 101, 0, "103a 105a "},
		{"b", 106, 0, ""},
		{"", 102, 0, "103a 104b 105a 106b "},
		{"", 0, 2, "105a 106b "},
	} {
		if got := seqs(tt.job, tt.after, tt.limit); got != tt.want {
			t.Errorf("QueueEvents(%q, %d, %d) = %q, want %q", tt.job, tt.after, tt.limit, got, tt.want)
		}
	}
	if last, err := db.LastQueueEvent(ctx); err != nil || last != 106 {
		t.Errorf("LastQueueEvent = %d, %v; want 106", last, err)
	}
	if _, err := db.exec(ctx, `DELETE FROM queue WHERE id = 'a'`); err != nil {
		t.Fatal(err)
	}
	if got := seqs("", 0, 0); got != "102b 104b 106b " {
		t.Errorf("after job a's row went: %q, want only b's events", got)
	}
}

// TestQueuedJobByID_RunID: a job is found by its own id, or by the id its
// run has in the repository's store.
func TestQueuedJobByID_RunID(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	if _, err := db.Enqueue(ctx, QueuedJob{ID: "d20260101-000000-aaaa", Repo: "/r", Base: "b", Request: []byte("{}")}); err != nil {
		t.Fatal(err)
	}
	if err := db.SetRunID(ctx, "d20260101-000000-aaaa", "20260101-000001-bbbb"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"d20260101-000000-aaaa", "20260101-000001-bbbb"} {
		j, err := db.QueuedJobByID(ctx, id)
		if err != nil || j.ID != "d20260101-000000-aaaa" {
			t.Errorf("QueuedJobByID(%q) = %q, %v; want the job", id, j.ID, err)
		}
	}
	for _, id := range []string{"", "20260101"} {
		if _, err := db.QueuedJobByID(ctx, id); !errors.Is(err, ErrNotFound) {
			t.Errorf("QueuedJobByID(%q): %v, want ErrNotFound", id, err)
		}
	}
}
