package store

import (
	"context"
	"fmt"
	"time"
)

// A Candidate is the stored outcome of one candidate of a job: a row of the
// candidates table, keyed by (JobID, Name).
type Candidate struct {
	JobID       string
	Seq         int // input order
	Name        string
	ContentID   string
	Source      string
	Parent      string
	Explanation string
	Verdict     string
	DuplicateOf string
	Speedup     float64
	CILow       float64
	CIHigh      float64
	Pairs       int
	Seconds     float64
	FailureKind string
	Failure     []byte // JSON or nil
	Result      []byte // JSON of the whole result, or nil
	// Change is the JSON of the candidate's change, kept when it passed its
	// tests so that another machine can benchmark it (optimizer bench); nil
	// otherwise.
	Change  []byte
	Updated time.Time
}

const candidateColumns = `job_id, seq, name, content_id, source, parent, explanation, verdict, duplicate_of,
	speedup, ci_low, ci_high, pairs, seconds, failure_kind, failure, result, updated, change`

// AddCandidates inserts rows in one transaction. A zero Updated is now.
func (db *DB) AddCandidates(ctx context.Context, rows []Candidate) error {
	err := insertAll(ctx, db, insertCandidate, rows, candidateArgs)
	if err != nil {
		return fmt.Errorf("insert candidates: %w", err)
	}
	return nil
}

const insertCandidate = `INSERT INTO candidates (` + candidateColumns + `)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

func candidateArgs(c Candidate) []any {
	return []any{c.JobID, c.Seq, c.Name, c.ContentID, c.Source, c.Parent, c.Explanation, c.Verdict,
		c.DuplicateOf, c.Speedup, c.CILow, c.CIHigh, c.Pairs, c.Seconds, c.FailureKind,
		jsonArg(c.Failure), jsonArg(c.Result), timeArg(orNow(c.Updated)), jsonArg(c.Change)}
}

// UpdateCandidate sets every column of the candidate (c.JobID, c.Name) but
// its job, name and Seq to c's values; a zero Updated is now. It returns
// ErrNotFound if there is no such candidate.
func (db *DB) UpdateCandidate(ctx context.Context, c Candidate) error {
	n, err := db.exec(ctx, `UPDATE candidates SET content_id = ?, source = ?, parent = ?, explanation = ?,
		verdict = ?, duplicate_of = ?, speedup = ?, ci_low = ?, ci_high = ?, pairs = ?, seconds = ?,
		failure_kind = ?, failure = ?, result = ?, updated = ?, change = ?
		WHERE job_id = ? AND name = ?`,
		c.ContentID, c.Source, c.Parent, c.Explanation, c.Verdict, c.DuplicateOf, c.Speedup, c.CILow,
		c.CIHigh, c.Pairs, c.Seconds, c.FailureKind, jsonArg(c.Failure), jsonArg(c.Result),
		timeArg(orNow(c.Updated)), jsonArg(c.Change), c.JobID, c.Name)
	if err == nil && n == 0 {
		err = ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("update candidate %s of job %s: %w", c.Name, c.JobID, err)
	}
	return nil
}

// Candidates returns the candidates of a job in Seq order.
func (db *DB) Candidates(ctx context.Context, jobID string) ([]Candidate, error) {
	rows, err := queryAll(ctx, db, `SELECT `+candidateColumns+` FROM candidates
		WHERE job_id = ? ORDER BY seq, name`, scanCandidate, jobID)
	if err != nil {
		return nil, fmt.Errorf("read candidates of job %s: %w", jobID, err)
	}
	return rows, nil
}

func scanCandidate(s scanner) (Candidate, error) {
	var c Candidate
	err := s.Scan(&c.JobID, &c.Seq, &c.Name, &c.ContentID, &c.Source, &c.Parent, &c.Explanation,
		&c.Verdict, &c.DuplicateOf, &c.Speedup, &c.CILow, &c.CIHigh, &c.Pairs, &c.Seconds,
		&c.FailureKind, &c.Failure, &c.Result, timeCol{&c.Updated}, &c.Change)
	return c, err
}
