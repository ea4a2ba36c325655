package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// A Job is one evaluation of a set of candidates against one base: a row of
// the jobs table.
type Job struct {
	ID       string
	Kind     string // run, watch, demo
	Repo     string
	Base     string // 40-hex commit
	Parallel int
	PID      int // the optimizer process that runs it
	// OwnerStart is that process's start time as the process package reads
	// it ("" when unknown), so that a reused PID is not taken for the owner.
	OwnerStart string
	Config     []byte // JSON
	State      string // running, finished, interrupted, failed
	Winner     string // "" when none
	Report     []byte // the final report JSON, set by FinishJob
	Error      string
	Started    time.Time
	Finished   time.Time // zero while running
	// Shards is "" for a job run whole, "K/N" for a shard run (optimizer
	// run --shard), and every shard merged into it, "1/3,2/3", for a
	// merged store's job.
	Shards string
	Test   string // the effective test command, which merging compares
	// BenchKey names the job's benchmark settings and machine, so that a
	// later job like it can start from the pairs its benchmarks took
	// (BenchHistory); "" for none.
	BenchKey string
	// MinSpeedup is the threshold the job judged with, as a fraction:
	// 0.05 is 5%.
	MinSpeedup float64
	// Artifacts is the directory of the job's kept changes and profiles;
	// "" for none recorded.
	Artifacts string
}

// Job states that this package sets or looks for.
const (
	stateRunning     = "running"
	stateInterrupted = "interrupted"
)

const jobColumns = `id, kind, repo, base, parallel, pid, owner_start, config, state, winner, report, error, started, finished, shards, test, bench_key, min_speedup, artifacts`

// insertJob inserts a row of jobColumns: its arguments are jobArgs.
const insertJob = `INSERT INTO jobs (` + jobColumns + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// jobArgs is insertJob's arguments for j.
func jobArgs(j Job) []any {
	return []any{j.ID, j.Kind, j.Repo, j.Base, j.Parallel, j.PID, j.OwnerStart, jsonArg(j.Config), j.State, j.Winner,
		jsonArg(j.Report), j.Error, timeArg(orNow(j.Started)), timeArg(j.Finished), j.Shards, j.Test, j.BenchKey, j.MinSpeedup, j.Artifacts}
}

// CreateJob inserts j. An empty State is "running", a zero Started is now.
func (db *DB) CreateJob(ctx context.Context, j Job) error {
	return db.StartJob(ctx, j, nil)
}

// StartJob inserts j and its candidates in one transaction, so that a job
// is never recorded without them, however the process ends. An empty State
// is "running", a zero Started is now.
func (db *DB) StartJob(ctx context.Context, j Job, cands []Candidate) error {
	if j.ID == "" {
		return errors.New("insert job: empty id")
	}
	if j.State == "" {
		j.State = stateRunning
	}
	err := db.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, insertJob, jobArgs(j)...)
		if err != nil {
			return err
		}
		return insertRows(ctx, tx, insertCandidate, cands, candidateArgs)
	})
	if err != nil {
		return fmt.Errorf("insert job %s: %w", j.ID, err)
	}
	return nil
}

// FinishJob sets the job's final state, winner, report and error, and sets
// Finished to now. It returns ErrNotFound if there is no job id.
func (db *DB) FinishJob(ctx context.Context, id, state, winner string, report []byte, errMsg string) error {
	n, err := db.exec(ctx, `UPDATE jobs SET state = ?, winner = ?, report = ?, error = ?, finished = ? WHERE id = ?`,
		state, winner, jsonArg(report), errMsg, timeArg(time.Now()), id)
	if err == nil && n == 0 {
		err = ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("finish job %s: %w", id, err)
	}
	return nil
}

// Job returns the job whose id is idOrPrefix or, if there is none, the one
// job whose id starts with idOrPrefix. It returns ErrNotFound if no job
// matches (or idOrPrefix is empty), and ErrAmbiguous if several match.
func (db *DB) Job(ctx context.Context, idOrPrefix string) (Job, error) {
	if idOrPrefix == "" {
		return Job{}, fmt.Errorf("read job: empty id: %w", ErrNotFound)
	}
	// An exact match sorts first; two rows are enough to tell a unique
	// prefix from an ambiguous one.
	jobs, err := queryAll(ctx, db, `SELECT `+jobColumns+` FROM jobs
		WHERE substr(id, 1, length(?1)) = ?1
		ORDER BY id = ?1 DESC, id LIMIT 2`, scanJob, idOrPrefix)
	switch {
	case err != nil:
		return Job{}, fmt.Errorf("read job %s: %w", idOrPrefix, err)
	case len(jobs) == 0:
		return Job{}, fmt.Errorf("read job %s: %w", idOrPrefix, ErrNotFound)
	case jobs[0].ID == idOrPrefix || len(jobs) == 1:
		return jobs[0], nil
	default:
		return Job{}, fmt.Errorf("read job %s: %w", idOrPrefix, ErrAmbiguous)
	}
}

// Jobs returns up to limit jobs, newest first by Started; limit <= 0 means
// all of them.
func (db *DB) Jobs(ctx context.Context, limit int) ([]Job, error) {
	if limit <= 0 {
		limit = -1 // no limit, to SQLite
	}
	jobs, err := queryAll(ctx, db, `SELECT `+jobColumns+` FROM jobs
		ORDER BY started DESC, id DESC LIMIT ?`, scanJob, limit)
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	return jobs, nil
}

func scanJob(s scanner) (Job, error) {
	var j Job
	err := s.Scan(&j.ID, &j.Kind, &j.Repo, &j.Base, &j.Parallel, &j.PID, &j.OwnerStart, &j.Config, &j.State, &j.Winner,
		&j.Report, &j.Error, timeCol{&j.Started}, timeCol{&j.Finished}, &j.Shards, &j.Test, &j.BenchKey, &j.MinSpeedup, &j.Artifacts)
	return j, err
}
