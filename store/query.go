package store

import (
	"context"
	"database/sql"
	"fmt"
)

// write runs fn in one transaction on the write connection and commits it.
// The DSN makes it BEGIN IMMEDIATE: the write lock is taken, or waited for
// up to busy_timeout, before fn runs, so fn never fails with SQLITE_BUSY
// halfway. A transaction fn returns an error from is rolled back.
func (db *DB) write(ctx context.Context, fn func(*sql.Tx) error) (err error) {
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	if err = fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// exec runs one statement in its own write transaction and returns how many
// rows it changed.
func (db *DB) exec(ctx context.Context, query string, args ...any) (n int64, err error) {
	err = db.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, query, args...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, err
}

// insertAll inserts rows in one transaction with one prepared statement;
// args gives the statement's arguments for a row. No rows is no write.
func insertAll[T any](ctx context.Context, db *DB, query string, rows []T, args func(T) []any) error {
	if len(rows) == 0 {
		return nil
	}
	return db.write(ctx, func(tx *sql.Tx) error {
		return insertRows(ctx, tx, query, rows, args)
	})
}

// insertRows inserts rows within tx with one prepared statement.
func insertRows[T any](ctx context.Context, tx *sql.Tx, query string, rows []T, args func(T) []any) error {
	if len(rows) == 0 {
		return nil
	}
	stmt, err := tx.PrepareContext(ctx, query)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for i, r := range rows {
		if _, err := stmt.ExecContext(ctx, args(r)...); err != nil {
			return fmt.Errorf("row %d: %w", i, err)
		}
	}
	return nil
}

// A scanner is a *sql.Row or *sql.Rows.
type scanner interface {
	Scan(dest ...any) error
}

// queryAll runs query on a read connection and scans every row with scan.
func queryAll[T any](ctx context.Context, db *DB, query string, scan func(scanner) (T, error), args ...any) ([]T, error) {
	rows, err := db.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
