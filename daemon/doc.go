// Package daemon is the optimizer daemon: one long-lived process per
// machine, serving an HTTP API. It owns the warm worktree pools of every
// repository it serves, a durable queue of jobs, the machine-wide slot
// budget and the benchmark gate.
//
// # What flows through it
//
// A client POSTs a job to /v1/jobs (package api has the wire types). The
// request is validated (the repository found, the base resolved, every
// candidate loaded: see validate). It is normalised into a jobSpec and
// recorded in the daemon's own store (store.Enqueue) before the 202 answer.
// From then on no crash loses it.
//
// The scheduler takes queued jobs oldest first, up to Options.MaxJobs at
// once. It runs each with evaluator.Run on its repository's warm pool
// (repoPools), through a jobPool. Every slot is first granted by the gate,
// the machine-wide budget with its fairness and benchmark rules. The
// evaluation is recorded in the repository's own store, as the CLI records
// it, so that optimizer history, show and report find it. The queue row
// keeps its id (run_id) and the final report.
//
// The job's events go through the Broker, numbered, to SSE streams
// (/v1/jobs/{id}/events, /v1/events, resumable with Last-Event-ID) and to
// in-process subscribers. A reader that cannot keep up is cut off, never
// waited for: the scheduler does not block on a client.
//
// # Crashes and restarts
//
// At start, Run kills what a killed daemon's jobs left running
// (proc.KillOrphans). It puts every job the queue still has as running back
// in the queue. The job runs again from the start, and its interrupted run
// stays in the repository's store as interrupted. It adopts the slots a
// previous daemon kept warm. On SIGTERM (ctx's end) it cancels running
// jobs, which the evaluator records as interrupted. It leaves them to the
// next start in the same way.
//
// # In-process use
//
// Server.Jobs, Server.Job, Server.Cancel and Server.Broker().Subscribe are
// what the HTTP handlers call; the dashboard calls them directly.
// Everything outside /v1/ and /metrics goes to Options.Other.
package daemon
