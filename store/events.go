package store

import (
	"context"
	"fmt"
	"time"
)

// An Event is one thing that happened in a job, for a candidate or, when
// Candidate is "", for the job: a row of the events table.
type Event struct {
	JobID     string
	Time      time.Time
	Kind      string
	Candidate string
	Message   string
}

// AddEvent inserts e. A zero Time is now.
func (db *DB) AddEvent(ctx context.Context, e Event) error {
	_, err := db.exec(ctx, insertEvent, eventArgs(e)...)
	if err != nil {
		return fmt.Errorf("insert event: %w", err)
	}
	return nil
}

const insertEvent = `INSERT INTO events (job_id, time, kind, candidate, message) VALUES (?, ?, ?, ?, ?)`

func eventArgs(e Event) []any {
	return []any{e.JobID, timeArg(orNow(e.Time)), e.Kind, e.Candidate, e.Message}
}

// Events returns the events of a job by Time, then in the order they were
// added.
func (db *DB) Events(ctx context.Context, jobID string) ([]Event, error) {
	rows, err := queryAll(ctx, db, `SELECT job_id, time, kind, candidate, message
		FROM events WHERE job_id = ? ORDER BY time, id`,
		func(s scanner) (Event, error) {
			var e Event
			err := s.Scan(&e.JobID, timeCol{&e.Time}, &e.Kind, &e.Candidate, &e.Message)
			return e, err
		}, jobID)
	if err != nil {
		return nil, fmt.Errorf("read events of job %s: %w", jobID, err)
	}
	return rows, nil
}
