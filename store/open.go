package store

import (
	"context"
	"errors"
	"fmt"
	"os"
)

// Alive reports whether the process that started a job, known by its pid
// and start time, still runs (proc.Alive). The opening functions below mark
// the running jobs of dead processes interrupted with it.
type Alive func(pid int, start string) bool

// MovedAside is told that the corrupt store file path was moved aside to
// aside (MoveAside), and why: the store's own error.
type MovedAside func(path, aside string, cause error)

// ErrNoJobs is FindJob's answer for a store that holds no job.
var ErrNoJobs = errors.New("no job has run in this repository yet")

// OpenLive opens the store at path, as Open does, and marks interrupted the
// running jobs whose process alive says is dead, so that what is read from
// it is true.
func OpenLive(ctx context.Context, path string, alive Alive) (*DB, error) {
	db, err := Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	if _, err := db.MarkInterrupted(ctx, alive); err != nil {
		db.Close()
		return nil, fmt.Errorf("mark dead jobs interrupted: %w", err)
	}
	return db, nil
}

// OpenToRead is OpenLive for readers of past jobs. It makes no store, so
// a missing one is ErrNoJobs (naming the path). A store that cannot be
// opened for writing (on a read-only file system, say) is opened read-only
// as it is, without marking dead jobs interrupted.
func OpenToRead(ctx context.Context, path string, alive Alive) (*DB, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w (no store at %s)", ErrNoJobs, path)
	}
	db, err := OpenLive(ctx, path, alive)
	if err == nil || IsCorrupt(err) || errors.Is(err, ErrIsDirectory) {
		return db, err
	}
	if ro, rerr := OpenReadOnly(ctx, path); rerr == nil {
		return ro, nil
	}
	return nil, err
}

// OpenForJob is OpenLive for writers of jobs. A corrupt store is moved
// aside, never deleted, and moved is told; then a new one is made in its
// place. So a damaged file (a kill -9 mid-write on a file system that lies
// about syncs, a stray write) does not stop every job after it.
func OpenForJob(ctx context.Context, path string, alive Alive, moved MovedAside) (*DB, error) {
	db, err := OpenLive(ctx, path, alive)
	if err == nil || !IsCorrupt(err) {
		return db, err
	}
	if err := moveAside(path, err, moved); err != nil {
		return nil, err
	}
	return OpenLive(ctx, path, alive)
}

// MarkDead marks interrupted the running jobs of dead processes in the store
// at path, and returns how many it marked. A missing store is an error
// wrapping fs.ErrNotExist. A corrupt store is moved aside, moved is told,
// and MarkDead returns 0 and no error: there is nothing left to mark.
func MarkDead(ctx context.Context, path string, alive Alive, moved MovedAside) (int, error) {
	if _, err := os.Stat(path); err != nil {
		return 0, fmt.Errorf("open store: %w", err)
	}
	db, err := Open(ctx, path)
	if err != nil {
		err = fmt.Errorf("open store: %w", err)
	} else {
		var n int
		n, err = db.MarkInterrupted(ctx, alive)
		db.Close()
		if err == nil {
			return n, nil
		}
		err = fmt.Errorf("mark dead jobs interrupted: %w", err)
	}
	if IsCorrupt(err) {
		return 0, moveAside(path, err, moved)
	}
	return 0, err
}

// moveAside moves the corrupt store at path aside and tells moved.
func moveAside(path string, cause error, moved MovedAside) error {
	aside, err := MoveAside(path)
	if err != nil {
		return fmt.Errorf("%w; and it could not be moved aside: %w", cause, err)
	}
	moved(path, aside, errors.Unwrap(cause))
	return nil
}

// FindJob finds a job by id or unique prefix; "" is the latest job, and
// ErrNoJobs when there is none. Its errors say what to do in the words of
// the command line.
func (db *DB) FindJob(ctx context.Context, id string) (Job, error) {
	if id == "" {
		jobs, err := db.Jobs(ctx, 1)
		if err != nil {
			return Job{}, fmt.Errorf("list jobs: %w", err)
		}
		if len(jobs) == 0 {
			return Job{}, ErrNoJobs
		}
		id = jobs[0].ID
	}
	j, err := db.Job(ctx, id)
	switch {
	case errors.Is(err, ErrNotFound):
		return j, notFound(fmt.Sprintf("no job %q in %s (see optimizer history)", id, db.Path()))
	case errors.Is(err, ErrAmbiguous):
		return j, fmt.Errorf("job prefix %q matches more than one job: give more of it", id)
	case err != nil:
		return j, fmt.Errorf("read job %s: %w", id, err)
	}
	return j, nil
}

// notFound is a message for a person that wraps ErrNotFound.
type notFound string

func (e notFound) Error() string { return string(e) }
func (e notFound) Unwrap() error { return ErrNotFound }
