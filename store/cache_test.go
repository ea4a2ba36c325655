package store

import (
	"context"
	"errors"
	"testing"
)

func TestDB_CacheEntry(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	addJob(t, db, "j1")
	addJob(t, db, "j2")

	if _, err := db.CacheEntry(ctx, CacheTests, "k"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("empty cache: err %v, want ErrNotFound", err)
	}
	put := func(e CacheEntry) {
		t.Helper()
		if err := db.PutCacheEntry(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	put(CacheEntry{Key: "k", Kind: CacheTests, JobID: "j1", Candidate: "a", Value: []byte(`{"v":1}`)})
	e, err := db.CacheEntry(ctx, CacheTests, "k")
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "entry", [3]string{e.JobID, e.Candidate, string(e.Value)}, [3]string{"j1", "a", `{"v":1}`})
	if _, err := db.CacheEntry(ctx, CacheSamples, "k"); !errors.Is(err, ErrNotFound) {
		t.Errorf("another kind under the same key: err %v, want ErrNotFound", err)
	}

	t.Run("Replace", func(t *testing.T) {
		put(CacheEntry{Key: "k", Kind: CacheTests, JobID: "j2", Candidate: "b", Value: []byte(`{"v":2}`)})
		e, err := db.CacheEntry(ctx, CacheTests, "k")
		if err != nil {
			t.Fatal(err)
		}
		equal(t, "replaced entry", [3]string{e.JobID, e.Candidate, string(e.Value)}, [3]string{"j2", "b", `{"v":2}`})
	})
	t.Run("UnknownJob", func(t *testing.T) {
		if err := db.PutCacheEntry(ctx, CacheEntry{Key: "x", Kind: CacheTests, JobID: "nope", Value: []byte("{}")}); err == nil {
			t.Error("an entry of a job the store does not have was kept")
		}
	})
	t.Run("GoesWithItsJob", func(t *testing.T) {
		if _, err := db.exec(ctx, "DELETE FROM jobs WHERE id = ?", "j2"); err != nil {
			t.Fatal(err)
		}
		if _, err := db.CacheEntry(ctx, CacheTests, "k"); !errors.Is(err, ErrNotFound) {
			t.Errorf("after its job was deleted: err %v, want ErrNotFound", err)
		}
	})
}
