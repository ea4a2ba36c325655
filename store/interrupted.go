package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// MarkInterrupted marks every job in state "running" whose owner alive
// reports dead, given its PID and start time ("" when not recorded). Such
// a job becomes "interrupted", with Finished now and an Error saying that
// the process (PID n) died. It returns how many jobs it marked.
// alive is called outside any transaction. A job that finishes meanwhile
// keeps its own state.
func (db *DB) MarkInterrupted(ctx context.Context, alive func(pid int, start string) bool) (int, error) {
	running, err := queryAll(ctx, db, `SELECT id, pid, owner_start FROM jobs WHERE state = ?`, scanRunning, stateRunning)
	if err != nil {
		return 0, fmt.Errorf("list running jobs: %w", err)
	}
	var dead []runningJob
	for _, j := range running {
		if !alive(j.pid, j.start) {
			dead = append(dead, j)
		}
	}
	n, err := db.markInterrupted(ctx, dead)
	if err != nil {
		return 0, fmt.Errorf("mark jobs interrupted: %w", err)
	}
	return n, nil
}

type runningJob struct {
	id    string
	pid   int
	start string
}

func scanRunning(s scanner) (runningJob, error) {
	var j runningJob
	err := s.Scan(&j.id, &j.pid, &j.start)
	return j, err
}

// markInterrupted marks the jobs interrupted, in one transaction, if they
// are still running, and returns how many it marked.
func (db *DB) markInterrupted(ctx context.Context, jobs []runningJob) (int, error) {
	if len(jobs) == 0 {
		return 0, nil
	}
	now := timeArg(time.Now())
	marked := 0
	err := db.write(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `UPDATE jobs SET state = ?, finished = ?, error = ?
			WHERE id = ? AND state = ?`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, j := range jobs {
			msg := fmt.Sprintf("the optimizer process (PID %d) died before the job finished", j.pid)
			res, err := stmt.ExecContext(ctx, stateInterrupted, now, msg, j.id, stateRunning)
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			if err != nil {
				return err
			}
			marked += int(n)
		}
		return nil
	})
	return marked, err
}
