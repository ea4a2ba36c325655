package store

import (
	"context"
	"fmt"
	"time"
)

// A Profile is one captured profile pair of a job: a row of the profiles
// table. The raw profile files live outside the store.
type Profile struct {
	JobID     string
	Candidate string // the profiled candidate (the winner)
	Kind      string // "cpu", "alloc", "command"
	BasePath  string // raw profile file of base, "" for none
	Path      string // raw profile file of the candidate
	Summary   []byte // JSON summary
	Created   time.Time
}

// AddProfile inserts p. A zero Created is now.
func (db *DB) AddProfile(ctx context.Context, p Profile) error {
	_, err := db.exec(ctx, `INSERT INTO profiles (job_id, candidate, kind, base_path, path, summary, created)
		VALUES (?, ?, ?, ?, ?, ?, ?)`,
		p.JobID, p.Candidate, p.Kind, p.BasePath, p.Path, jsonArg(p.Summary), timeArg(orNow(p.Created)))
	if err != nil {
		return fmt.Errorf("insert profile: %w", err)
	}
	return nil
}

// Profiles returns the profiles of a job in the order they were added.
func (db *DB) Profiles(ctx context.Context, jobID string) ([]Profile, error) {
	rows, err := queryAll(ctx, db, `SELECT job_id, candidate, kind, base_path, path, summary, created
		FROM profiles WHERE job_id = ? ORDER BY id`,
		func(s scanner) (Profile, error) {
			var p Profile
			err := s.Scan(&p.JobID, &p.Candidate, &p.Kind, &p.BasePath, &p.Path, &p.Summary, timeCol{&p.Created})
			return p, err
		}, jobID)
	if err != nil {
		return nil, fmt.Errorf("read profiles of job %s: %w", jobID, err)
	}
	return rows, nil
}
