package store

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// newTestDB opens a store in a fresh temporary directory, closed when the
// test ends.
func newTestDB(tb testing.TB) *DB {
	tb.Helper()
	return openTestDB(tb, filepath.Join(tb.TempDir(), "optimizer.db"))
}

func openTestDB(tb testing.TB, path string) *DB {
	tb.Helper()
	db, err := Open(context.Background(), path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Error(err)
		}
	})
	return db
}

// testTime is a fixed time with nanoseconds, in a zone other than UTC.
var testTime = time.Date(2026, 3, 4, 5, 6, 7, 890123400, time.FixedZone("X", 3600))

// newJob returns a complete running job with this id.
func newJob(id string) Job {
	return Job{
		ID:         id,
		Kind:       "run",
		Repo:       "/src/repo",
		Base:       "0123456789abcdef0123456789abcdef01234567",
		Parallel:   4,
		PID:        4242,
		Config:     []byte(`{"parallel":4}`),
		BenchKey:   "bench-key",
		MinSpeedup: 0.025,
		Artifacts:  "/src/repo/.git/optimizer/artifacts",
		State:      "running",
		Started:    testTime,
	}
}

// addJob inserts newJob(id) and returns it as it reads back.
func addJob(tb testing.TB, db *DB, id string) Job {
	tb.Helper()
	j := newJob(id)
	if err := db.CreateJob(context.Background(), j); err != nil {
		tb.Fatal(err)
	}
	j.Started = j.Started.UTC()
	return j
}

// equal fails the test if got and want differ.
func equal[T any](tb testing.TB, what string, got, want T) {
	tb.Helper()
	if !reflect.DeepEqual(got, want) {
		tb.Errorf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}

// count returns the number of rows of a table.
func count(tb testing.TB, db *DB, table string) int {
	tb.Helper()
	var n int
	if err := db.r.QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
		tb.Fatal(err)
	}
	return n
}
