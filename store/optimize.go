package store

import (
	"context"
	"fmt"
	"time"
)

// An OptimizeRun is a row of optimize_runs: one run of the optimisation
// loop, whose rounds are jobs of their own.
type OptimizeRun struct {
	ID       string
	Repo     string
	Base     string
	Config   []byte // JSON
	State    string // running, finished, interrupted, failed
	Winner   string
	Report   []byte // JSON
	Started  time.Time
	Finished time.Time
}

// A GeneratorCall is a row of generator_calls: one call of a generator.
type GeneratorCall struct {
	RunID      string
	Round      int
	Generator  string
	Mode       string // generate, repair, refine
	Target     string
	Parent     string
	Request    []byte // JSON
	ExitCode   int
	Seconds    float64
	Stderr     string
	Error      string // why the call gave no candidates, "" when it did
	Candidates int
	Started    time.Time
}

// A Lineage is a row of lineage: where one candidate of a run came from,
// and what the job that judged it said.
type Lineage struct {
	RunID     string
	Candidate string
	Generator string
	Round     int
	Mode      string
	Parent    string
	Target    string
	JobID     string
	ContentID string
	Verdict   string
	Speedup   float64
}

// StartOptimizeRun inserts r. A zero Started is now.
func (db *DB) StartOptimizeRun(ctx context.Context, r OptimizeRun) error {
	if r.State == "" {
		r.State = stateRunning
	}
	_, err := db.exec(ctx, `INSERT INTO optimize_runs (id, repo, base, config, state, winner, report, started, finished)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.Repo, r.Base, jsonArg(r.Config), r.State, r.Winner, jsonArg(r.Report), timeArg(orNow(r.Started)), timeArg(r.Finished))
	if err != nil {
		return fmt.Errorf("insert optimize run %s: %w", r.ID, err)
	}
	return nil
}

// FinishOptimizeRun sets a run's final state, winner and report.
func (db *DB) FinishOptimizeRun(ctx context.Context, id, state, winner string, report []byte) error {
	n, err := db.exec(ctx, `UPDATE optimize_runs SET state = ?, winner = ?, report = ?, finished = ? WHERE id = ?`,
		state, winner, jsonArg(report), timeArg(time.Now()), id)
	if err == nil && n == 0 {
		err = ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("finish optimize run %s: %w", id, err)
	}
	return nil
}

// AddGeneratorCall inserts c. A zero Started is now.
func (db *DB) AddGeneratorCall(ctx context.Context, c GeneratorCall) error {
	_, err := db.exec(ctx, `INSERT INTO generator_calls (run_id, round, generator, mode, target, parent, request,
		exit_code, seconds, stderr, error, candidates, started) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.RunID, c.Round, c.Generator, c.Mode, c.Target, c.Parent, jsonArg(c.Request),
		c.ExitCode, c.Seconds, c.Stderr, c.Error, c.Candidates, timeArg(orNow(c.Started)))
	if err != nil {
		return fmt.Errorf("insert generator call of run %s: %w", c.RunID, err)
	}
	return nil
}

// GeneratorCalls returns a run's generator calls in the order they were made.
func (db *DB) GeneratorCalls(ctx context.Context, runID string) ([]GeneratorCall, error) {
	rows, err := queryAll(ctx, db, `SELECT run_id, round, generator, mode, target, parent, request, exit_code,
		seconds, stderr, error, candidates, started FROM generator_calls WHERE run_id = ? ORDER BY id`,
		func(s scanner) (GeneratorCall, error) {
			var c GeneratorCall
			var req *string
			err := s.Scan(&c.RunID, &c.Round, &c.Generator, &c.Mode, &c.Target, &c.Parent, &req, &c.ExitCode,
				&c.Seconds, &c.Stderr, &c.Error, &c.Candidates, timeCol{&c.Started})
			if req != nil {
				c.Request = []byte(*req)
			}
			return c, err
		}, runID)
	if err != nil {
		return nil, fmt.Errorf("read generator calls of run %s: %w", runID, err)
	}
	return rows, nil
}

// PutLineage inserts l, or replaces the row of the same run and candidate
// (a candidate's job and verdict are known only after its round).
func (db *DB) PutLineage(ctx context.Context, l Lineage) error {
	_, err := db.exec(ctx, `INSERT OR REPLACE INTO lineage (run_id, candidate, generator, round, mode, parent, target,
		job_id, content_id, verdict, speedup) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		l.RunID, l.Candidate, l.Generator, l.Round, l.Mode, l.Parent, l.Target, l.JobID, l.ContentID, l.Verdict, l.Speedup)
	if err != nil {
		return fmt.Errorf("put lineage of %s in run %s: %w", l.Candidate, l.RunID, err)
	}
	return nil
}

// LineageOf returns a run's candidates by round, then name.
func (db *DB) LineageOf(ctx context.Context, runID string) ([]Lineage, error) {
	rows, err := queryAll(ctx, db, `SELECT run_id, candidate, generator, round, mode, parent, target, job_id,
		content_id, verdict, speedup FROM lineage WHERE run_id = ? ORDER BY round, candidate`,
		func(s scanner) (Lineage, error) {
			var l Lineage
			err := s.Scan(&l.RunID, &l.Candidate, &l.Generator, &l.Round, &l.Mode, &l.Parent, &l.Target, &l.JobID,
				&l.ContentID, &l.Verdict, &l.Speedup)
			return l, err
		}, runID)
	if err != nil {
		return nil, fmt.Errorf("read lineage of run %s: %w", runID, err)
	}
	return rows, nil
}
