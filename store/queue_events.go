package store

import (
	"context"
	"fmt"
)

// A QueueEvent is one event the daemon published for a job of its queue: a
// row of the queue_events table. Data is the event as the API sends it;
// the store does not read it.
type QueueEvent struct {
	Seq  uint64 // the event's SSE id
	Job  string // the queue job's id
	Data []byte // JSON
}

// AddQueueEvents records events, in one transaction. A job that is not in
// the queue is an error: its events would have nothing to go with.
func (db *DB) AddQueueEvents(ctx context.Context, events []QueueEvent) error {
	err := insertAll(ctx, db, `INSERT INTO queue_events (seq, job, data) VALUES (?, ?, ?)`, events,
		func(e QueueEvent) []any { return []any{int64(e.Seq), e.Job, string(e.Data)} })
	if err != nil {
		return fmt.Errorf("record events: %w", err)
	}
	return nil
}

// QueueEvents returns the events of job ("": of every job) with a Seq above
// after, in Seq order. It returns at most limit of them (<= 0: all); with a
// limit, the newest limit of them.
func (db *DB) QueueEvents(ctx context.Context, job string, after uint64, limit int) ([]QueueEvent, error) {
	q := `SELECT seq, job, data FROM queue_events WHERE seq > ?`
	args := []any{int64(after)}
	if job != "" {
		q += ` AND job = ?`
		args = append(args, job)
	}
	if limit <= 0 {
		limit = -1
	}
	q = `SELECT * FROM (` + q + ` ORDER BY seq DESC LIMIT ?) ORDER BY seq`
	args = append(args, limit)
	rows, err := queryAll(ctx, db, q, func(s scanner) (QueueEvent, error) {
		var e QueueEvent
		var seq int64
		var data string
		err := s.Scan(&seq, &e.Job, &data)
		e.Seq, e.Data = uint64(seq), []byte(data)
		return e, err
	}, args...)
	if err != nil {
		return nil, fmt.Errorf("read events of job %q: %w", job, err)
	}
	return rows, nil
}

// LastQueueEvent returns the highest Seq recorded, 0 for none: a daemon
// numbers its events after it.
func (db *DB) LastQueueEvent(ctx context.Context) (uint64, error) {
	var seq int64
	if err := db.r.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM queue_events`).Scan(&seq); err != nil {
		return 0, fmt.Errorf("read the last event: %w", err)
	}
	return uint64(seq), nil
}
