// Package store keeps what a job did in one SQLite file, so that a report,
// the history and any figure in them can be read back or recomputed later.
//
// # What flows through it
//
// The evaluator writes a job row before anything runs ([DB.CreateJob]) and
// its candidates ([DB.AddCandidates]). Then, as each step finishes, it
// writes per-test results, every raw benchmark sample, per-benchmark
// results, events, profiles and each candidate's updated outcome
// ([DB.UpdateCandidate]). At last it writes the job's state and final report
// ([DB.FinishJob]). A job cut off at any point leaves rows that say exactly
// what finished. [DB.MarkInterrupted] later marks the running jobs whose
// process died. The command line reads
// jobs back by id or unique prefix for history, show and apply. The baseline
// tests of a commit are cached as an opaque blob per key ([DB.Baseline]).
//
// Callers see only the types of this package: no database/sql value leaves
// it, and a lookup that finds nothing is [ErrNotFound].
//
// # Schema
//
// The tables jobs, candidates, test_results, bench_samples, bench_results,
// profiles, events and baselines are meant to be queried by users too; their
// columns are described in migrations/0001_init.sql. Every table but
// baselines refers to jobs(id) with ON DELETE CASCADE. Times are stored as
// UTC text with nine fraction digits and read back as UTC [time.Time].
//
// The schema changes only through numbered files under migrations/, applied
// in order by [Open], each in its own transaction. The number of the last one
// applied is the database's user_version. A database written by a newer
// optimizer is refused with [ErrSchemaTooNew] rather than misread.
//
// # Concurrency
//
// Many goroutines of a process, and several processes, may write one file at
// once. The database is in WAL mode, so readers never wait for writers. Each
// write is one IMMEDIATE transaction, which takes SQLite's write lock when it
// begins, so that a waiting writer waits in busy_timeout (10s) instead of
// failing with SQLITE_BUSY. Within a process, writes go through a single
// connection and queue in Go; reads use a small pool of read-only
// connections. A batch (a slice of rows) is one transaction with one
// prepared statement.
package store
