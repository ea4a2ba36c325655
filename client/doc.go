// Package client speaks the optimizer daemon's protocol: JSON over HTTP,
// versioned under /v1, on a unix socket or on TCP with a bearer token.
//
// # What flows through it
//
// An [api.JobRequest] goes to the daemon with [Client.Submit], which returns
// once the daemon has recorded the job durably. [Client.Events] streams the
// job's [api.Event]s as Server-Sent Events, resumed with Last-Event-ID after
// a broken connection. [Client.Job] and [Client.Report] read its state and
// report; [Client.Cancel] cancels it. [Client.Follow] puts these together for
// a caller that waits for the job. It gives its events as the evaluator's,
// then the job as it ended. It cancels the job on the daemon if the caller's
// ctx ends first. A [Session] is a watch session's evaluations, each a job of
// the session.
//
// The wire types are package api's: the daemon package decodes the same
// structs, so the two cannot drift apart.
//
// Nothing else speaks the protocol by hand: the CLI uses this package.
package client
