package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// The kinds of result cache entry.
const (
	CacheTests       = "tests"       // a candidate's phase-1 outcome
	CacheCalibration = "calibration" // a Go benchmark's iteration counts at base
	CacheSamples     = "samples"     // a candidate's benchmark pairs
	CacheProfile     = "profile"     // a winner's Go profile
	CacheCoverage    = "coverage"    // what a package's Go benchmarks execute at base
	CacheFirsts      = "firsts"      // the hack check's first iterations of a candidate's pairs
)

// A CacheEntry is one row of the result cache: what job JobID learned of
// Candidate, under a key that hashes everything that could change it. The
// evaluator builds keys and values; the store keeps them opaque.
type CacheEntry struct {
	Key       string
	Kind      string
	JobID     string
	Candidate string
	Value     []byte // JSON
	Updated   time.Time
}

// CacheEntry returns the entry of kind under key, or ErrNotFound.
func (db *DB) CacheEntry(ctx context.Context, kind, key string) (CacheEntry, error) {
	e := CacheEntry{Key: key, Kind: kind}
	var v string
	err := db.r.QueryRowContext(ctx, `SELECT job_id, candidate, value, updated FROM result_cache WHERE key = ? AND kind = ?`,
		key, kind).Scan(&e.JobID, &e.Candidate, &v, timeCol{&e.Updated})
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrNotFound
	}
	if err != nil {
		return CacheEntry{}, fmt.Errorf("read %s cache entry %s: %w", kind, key, err)
	}
	e.Value = []byte(v)
	return e, nil
}

// PutCacheEntry keeps e, replacing any entry under its key. Its job must be
// in the store.
func (db *DB) PutCacheEntry(ctx context.Context, e CacheEntry) error {
	if e.Kind == "" || e.Key == "" {
		return fmt.Errorf("put cache entry: kind and key are required")
	}
	_, err := db.exec(ctx, `INSERT INTO result_cache (key, kind, job_id, candidate, value, updated) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET kind = excluded.kind, job_id = excluded.job_id, candidate = excluded.candidate,
			value = excluded.value, updated = excluded.updated`,
		e.Key, e.Kind, e.JobID, e.Candidate, string(e.Value), timeArg(orNow(e.Updated)))
	if err != nil {
		return fmt.Errorf("put %s cache entry %s: %w", e.Kind, e.Key, err)
	}
	return nil
}
