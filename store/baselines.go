package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Baseline returns the blob cached under key, or ErrNotFound.
func (db *DB) Baseline(ctx context.Context, key string) ([]byte, error) {
	var b []byte
	err := db.r.QueryRowContext(ctx, `SELECT value FROM baselines WHERE key = ?`, key).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read baseline %s: %w", key, err)
	}
	return b, nil
}

// PutBaseline caches b under key, replacing any blob cached there.
func (db *DB) PutBaseline(ctx context.Context, key string, b []byte) error {
	if b == nil {
		b = []byte{}
	}
	_, err := db.exec(ctx, `INSERT INTO baselines (key, value, updated) VALUES (?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated = excluded.updated`,
		key, b, timeArg(time.Now()))
	if err != nil {
		return fmt.Errorf("put baseline %s: %w", key, err)
	}
	return nil
}
