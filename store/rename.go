package store

import (
	"context"
	"database/sql"
	"fmt"
)

// RenameJob gives the job with id from the id to, in every table that
// refers to it, in one transaction. A daemon that runs a job again under
// its one id keeps the interrupted run as to. It returns ErrNotFound when
// no job has id from.
func (db *DB) RenameJob(ctx context.Context, from, to string) error {
	err := db.write(ctx, func(tx *sql.Tx) error {
		// The children follow the parent within the transaction; the
		// foreign keys are checked at its commit.
		if _, err := tx.ExecContext(ctx, `PRAGMA defer_foreign_keys = ON`); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE jobs SET id = ? WHERE id = ?`, to, from)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return fmt.Errorf("%w (%v)", ErrNotFound, err)
		}
		refs, err := jobRefs(ctx, tx)
		if err != nil {
			return err
		}
		for _, r := range refs {
			q := fmt.Sprintf(`UPDATE %q SET %q = ? WHERE %q = ?`, r.table, r.column, r.column)
			if _, err := tx.ExecContext(ctx, q, to, from); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("rename job %s to %s: %w", from, to, err)
	}
	return nil
}

type jobRef struct{ table, column string }

// jobRefs lists the columns whose foreign key refers to jobs.
func jobRefs(ctx context.Context, tx *sql.Tx) ([]jobRef, error) {
	rows, err := tx.QueryContext(ctx, `SELECT m.name, p."from" FROM sqlite_master m, pragma_foreign_key_list(m.name) p
		WHERE m.type = 'table' AND p."table" = 'jobs'`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var refs []jobRef
	for rows.Next() {
		var r jobRef
		if err := rows.Scan(&r.table, &r.column); err != nil {
			return nil, err
		}
		refs = append(refs, r)
	}
	return refs, rows.Err()
}
