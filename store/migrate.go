package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
)

// migrations holds the schema's history: files named NNNN_what.sql, numbered
// from 0001 without gaps. A file, once released, is never edited; a change
// to the schema is a new file.
//
//go:embed migrations/*.sql
var migrations embed.FS

// A migration is one numbered schema change.
type migration struct {
	version int
	name    string
	sql     string
}

// loadMigrations reads the migrations under migrations/ in fsys, in order,
// and checks that they are numbered 1, 2, 3, ...
func loadMigrations(fsys fs.FS) ([]migration, error) {
	names, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	ms := make([]migration, 0, len(names))
	for i, name := range names { // fs.Glob returns names sorted
		base := strings.TrimPrefix(name, "migrations/")
		num, _, _ := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if err != nil || v != i+1 {
			return nil, fmt.Errorf("migration %s: want a name starting %04d_", base, i+1)
		}
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: base, sql: string(b)})
	}
	return ms, nil
}

// migrate applies the migrations in fsys that the database lacks, each in
// its own transaction, and returns how many it applied.
func (db *DB) migrate(ctx context.Context, fsys fs.FS) (int, error) {
	ms, err := loadMigrations(fsys)
	if err != nil {
		return 0, fmt.Errorf("load migrations: %w", err)
	}
	v, err := userVersion(ctx, db.w)
	if err != nil {
		return 0, err
	}
	if v > len(ms) {
		return 0, fmt.Errorf("%w: its version is %d, this optimizer knows versions up to %d; use a newer optimizer or another store file",
			ErrSchemaTooNew, v, len(ms))
	}
	applied := 0
	for _, m := range ms[v:] {
		ok, err := db.apply(ctx, m)
		if err != nil {
			return applied, fmt.Errorf("apply migration %s: %w", m.name, err)
		}
		if ok {
			applied++
		}
	}
	return applied, nil
}

// apply applies m unless another process has done so since migrate read
// the version: the version is read again under the write lock.
func (db *DB) apply(ctx context.Context, m migration) (applied bool, err error) {
	err = db.write(ctx, func(tx *sql.Tx) error {
		v, err := userVersion(ctx, tx)
		if err != nil || v >= m.version {
			return err
		}
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return err
		}
		// PRAGMA takes no parameters; the version is an int.
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.version)); err != nil {
			return err
		}
		applied = true
		return nil
	})
	return applied, err
}

// userVersion reads the schema version: the last migration applied.
func userVersion(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int, error) {
	var v int
	if err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}
