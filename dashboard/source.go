package dashboard

import (
	"context"
	"errors"
	"time"

	"github.com/optimizer-dev/optimizer/gitcmd"
	"github.com/optimizer-dev/optimizer/result"
	"github.com/optimizer-dev/optimizer/store"
)

// ErrNotFound is what a Source returns, wrapped or not, for a job it does
// not know; the handler answers 404. store.ErrNotFound is taken the same way.
var ErrNotFound = errors.New("not found")

// A Source is what the dashboard reads. The daemon implements it over its
// queue, its store and its event broker. Its methods are called
// concurrently, one call per request.
type Source interface {
	// Jobs lists the jobs to show, queued, running and finished, newest
	// first.
	Jobs(ctx context.Context) ([]Job, error)
	// Job is one job as Jobs lists it, or ErrNotFound.
	Job(ctx context.Context, jobID string) (Job, error)
	// Report is a job's report: final once it finished, partial while it
	// runs.
	Report(ctx context.Context, jobID string) (*result.Report, error)
	// Samples are a candidate's raw benchmark samples, by measuring order
	// (store.DB.BenchSamples).
	Samples(ctx context.Context, jobID, candidate string) ([]store.BenchSample, error)
	// Diff is a candidate's change against base as a unified diff, "" when
	// it is not known.
	Diff(ctx context.Context, jobID, candidate string) (string, error)
	// BaseHistory is base's value of each benchmark in the repository's
	// latest jobs, at most jobs of them, as each job measured it
	// (store.DB.BaseHistory): oldest job first.
	BaseHistory(ctx context.Context, repo string, jobs int) ([]store.BasePoint, error)
	// Commits returns those of commits that the repository has, with their
	// subjects, oldest first along first parents
	// (gitcmd.Repo.FirstParentOrder).
	Commits(ctx context.Context, repo string, commits []string) ([]gitcmd.Commit, error)
	// Subscribe streams events from the one after lastEventID ("" for
	// those from now on) until ctx is done. The channel is closed then, or
	// when the source stops. A slow reader may miss events: the dashboard
	// only needs to know that something changed.
	Subscribe(ctx context.Context, lastEventID string) (<-chan Event, error)
}

// A Job is one row of the jobs page.
type Job struct {
	ID    string
	Kind  string // run, watch, demo, ...
	Repo  string
	Base  string // 40-hex commit
	State string // queued, running, finished, interrupted, failed, cancelled
	// Done and Total count candidates with a final verdict, and all of them.
	Done, Total int
	// Doing says what a running job is doing now: "waiting for a slot",
	// "measuring fast, pair 7 of ≤ 30"; "" when unknown.
	Doing string
	// WaitsForSlot is set on a running job that holds no slot and waits
	// for one: it has no ETA.
	WaitsForSlot bool
	ETA          time.Duration // 0 when unknown, finished or waiting for a slot
	Winner       string        // "" when none (yet)
	Speedup      float64       // the winner's
	Seq          int64         // submission order
	Submitted    time.Time
	Started      time.Time // zero while queued
	Finished     time.Time // zero until finished
}

// An Event says that something happened to a job.
type Event struct {
	ID   string // resumable with Subscribe's lastEventID; may be ""
	Job  string
	Kind string // the evaluator's event kinds, or the daemon's (queued, ...)
}

// notFound reports whether err means "no such job".
func notFound(err error) bool {
	return errors.Is(err, ErrNotFound) || errors.Is(err, store.ErrNotFound)
}
