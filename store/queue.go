package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// A QueuedJob is one job of the daemon's queue: a row of the queue table.
// The daemon owns these rows; the results of the evaluation itself are in
// the repository's store, under RunID.
type QueuedJob struct {
	Seq       int64 // submission order
	ID        string
	Repo      string
	Base      string // 40-hex commit
	Request   []byte // the request as JSON
	State     string // queued, running, finished, failed, cancelled
	Submitted time.Time
	Started   time.Time // zero until it first runs
	Finished  time.Time // zero until it ends
	Attempts  int       // how many times it was started
	RunID     string    // the job id in the repository's store; "" before it starts
	Error     string
	Report    []byte // the final report JSON; nil until it ends
}

// Queue states.
const (
	QueueQueued    = "queued"
	QueueRunning   = "running"
	QueueFinished  = "finished"
	QueueFailed    = "failed"
	QueueCancelled = "cancelled"
)

const queueColumns = `seq, id, repo, base, request, state, submitted, started, finished, attempts, run_id, error, report`

// Enqueue records j as queued and returns its sequence number. It returns
// only once the row is committed: the job survives any crash after.
func (db *DB) Enqueue(ctx context.Context, j QueuedJob) (int64, error) {
	if j.ID == "" {
		return 0, errors.New("enqueue job: empty id")
	}
	var seq int64
	_, err := db.exec(ctx, `INSERT INTO queue (id, repo, base, request, state, submitted) VALUES (?, ?, ?, ?, ?, ?)`,
		j.ID, j.Repo, j.Base, string(j.Request), QueueQueued, timeArg(orNow(j.Submitted)))
	if err != nil {
		return 0, fmt.Errorf("enqueue job %s: %w", j.ID, err)
	}
	err = db.r.QueryRowContext(ctx, `SELECT seq FROM queue WHERE id = ?`, j.ID).Scan(&seq)
	if err != nil {
		return 0, fmt.Errorf("enqueue job %s: %w", j.ID, err)
	}
	return seq, nil
}

// QueuedJobByID returns the queued job with this id, or ErrNotFound. An id
// that is no job's is looked up as a run id (RunID), which jobs of older
// daemons had apart from their own.
func (db *DB) QueuedJobByID(ctx context.Context, id string) (QueuedJob, error) {
	if id == "" {
		return QueuedJob{}, fmt.Errorf("read queued job: empty id: %w", ErrNotFound)
	}
	jobs, err := queryAll(ctx, db, `SELECT `+queueColumns+` FROM queue WHERE id = ?1 OR run_id = ?1
		ORDER BY id = ?1 DESC, seq DESC LIMIT 1`, scanQueued, id)
	if err != nil {
		return QueuedJob{}, fmt.Errorf("read queued job %s: %w", id, err)
	}
	if len(jobs) == 0 {
		return QueuedJob{}, fmt.Errorf("read queued job %s: %w", id, ErrNotFound)
	}
	return jobs[0], nil
}

// A QueueFilter selects jobs of the queue. Zero fields select all.
type QueueFilter struct {
	Repo   string
	States []string
	Before int64 // only jobs with a smaller Seq: the page after one ending there
	Limit  int   // <= 0: all
	Oldest bool  // oldest first; otherwise newest first
}

// QueuedJobs returns the jobs f selects.
func (db *DB) QueuedJobs(ctx context.Context, f QueueFilter) ([]QueuedJob, error) {
	var where []string
	var args []any
	if f.Repo != "" {
		where, args = append(where, "repo = ?"), append(args, f.Repo)
	}
	if len(f.States) > 0 {
		where = append(where, "state IN (?"+strings.Repeat(", ?", len(f.States)-1)+")")
		for _, s := range f.States {
			args = append(args, s)
		}
	}
	if f.Before > 0 {
		where, args = append(where, "seq < ?"), append(args, f.Before)
	}
	q := `SELECT ` + queueColumns + ` FROM queue`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	if f.Oldest {
		q += " ORDER BY seq ASC"
	} else {
		q += " ORDER BY seq DESC"
	}
	limit := f.Limit
	if limit <= 0 {
		limit = -1
	}
	q += " LIMIT ?"
	args = append(args, limit)
	jobs, err := queryAll(ctx, db, q, scanQueued, args...)
	if err != nil {
		return nil, fmt.Errorf("list queued jobs: %w", err)
	}
	return jobs, nil
}

// StartQueued marks a queued job running and counts the attempt. It returns
// ErrNotFound when the job is not queued (cancelled meanwhile, say).
func (db *DB) StartQueued(ctx context.Context, id string) error {
	n, err := db.exec(ctx, `UPDATE queue SET state = ?, started = ?, attempts = attempts + 1, error = ''
		WHERE id = ? AND state = ?`, QueueRunning, timeArg(time.Now()), id, QueueQueued)
	if err != nil {
		return fmt.Errorf("start queued job %s: %w", id, err)
	}
	if n == 0 {
		return fmt.Errorf("start queued job %s: %w", id, ErrNotFound)
	}
	return nil
}

// SetRunID records the id the running job has in the repository's store.
func (db *DB) SetRunID(ctx context.Context, id, runID string) error {
	if _, err := db.exec(ctx, `UPDATE queue SET run_id = ? WHERE id = ?`, runID, id); err != nil {
		return fmt.Errorf("set run id of job %s: %w", id, err)
	}
	return nil
}

// EndQueued gives a job its final state, its error and its report. A job
// already ended keeps its state: it returns ErrNotFound then.
func (db *DB) EndQueued(ctx context.Context, id, state, errMsg string, report []byte) error {
	n, err := db.exec(ctx, `UPDATE queue SET state = ?, finished = ?, error = ?, report = ?
		WHERE id = ? AND state IN (?, ?)`, state, timeArg(time.Now()), errMsg, jsonArg(report), id, QueueQueued, QueueRunning)
	if err != nil {
		return fmt.Errorf("end queued job %s: %w", id, err)
	}
	if n == 0 {
		return fmt.Errorf("end queued job %s: %w", id, ErrNotFound)
	}
	return nil
}

// RequeueRunning puts every running job back in the queue, with why in its
// error, and returns their ids. The daemon that ran them is gone (it
// crashed, or it was stopped), so they are run again.
func (db *DB) RequeueRunning(ctx context.Context, why string) ([]string, error) {
	running, err := db.QueuedJobs(ctx, QueueFilter{States: []string{QueueRunning}, Oldest: true})
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, j := range running {
		n, err := db.exec(ctx, `UPDATE queue SET state = ?, error = ? WHERE id = ? AND state = ?`, QueueQueued, why, j.ID, QueueRunning)
		if err != nil {
			return ids, fmt.Errorf("requeue job %s: %w", j.ID, err)
		}
		if n > 0 {
			ids = append(ids, j.ID)
		}
	}
	return ids, nil
}

// CountQueued returns how many jobs are in each state.
func (db *DB) CountQueued(ctx context.Context) (map[string]int, error) {
	type row struct {
		state string
		n     int
	}
	rows, err := queryAll(ctx, db, `SELECT state, count(*) FROM queue GROUP BY state`, func(s scanner) (row, error) {
		var r row
		err := s.Scan(&r.state, &r.n)
		return r, err
	})
	if err != nil {
		return nil, fmt.Errorf("count queued jobs: %w", err)
	}
	out := map[string]int{}
	for _, r := range rows {
		out[r.state] = r.n
	}
	return out, nil
}

func scanQueued(s scanner) (QueuedJob, error) {
	var j QueuedJob
	var req string
	var report *string
	err := s.Scan(&j.Seq, &j.ID, &j.Repo, &j.Base, &req, &j.State, timeCol{&j.Submitted}, timeCol{&j.Started},
		timeCol{&j.Finished}, &j.Attempts, &j.RunID, &j.Error, &report)
	j.Request = []byte(req)
	if report != nil {
		j.Report = []byte(*report)
	}
	return j, err
}

// CancelQueued ends a job that is still queued as cancelled. It returns
// ErrNotFound when the job is not queued: a running job is cancelled by
// whoever runs it.
func (db *DB) CancelQueued(ctx context.Context, id, why string) error {
	n, err := db.exec(ctx, `UPDATE queue SET state = ?, finished = ?, error = ? WHERE id = ? AND state = ?`,
		QueueCancelled, timeArg(time.Now()), why, id, QueueQueued)
	if err != nil {
		return fmt.Errorf("cancel queued job %s: %w", id, err)
	}
	if n == 0 {
		return fmt.Errorf("cancel queued job %s: %w", id, ErrNotFound)
	}
	return nil
}
