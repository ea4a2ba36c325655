// Package profiler captures CPU and allocation profiles of the base and the
// winning candidate, and summarises them so that a report can say why the
// winner is faster.
//
// # What flows through it
//
// The evaluator decides what to profile; this package does the rest.
//
//   - [Capture] runs a Go test binary (built with go test -c -trimpath) on
//     the benchmarks that improved, with -test.cpuprofile and optionally
//     -test.memprofile, pinned to a CPU as phase 2 is. Raw profiles are
//     written where the caller says, usually the job's artifact directory;
//     they are ordinary pprof files that go tool pprof reads.
//   - [Summarize] reads a base and a winner profile with
//     github.com/google/pprof/profile and returns a [Summary]. It holds the
//     top functions by flat and cumulative share of samples, before and
//     after. It holds a line profile, with source text, of the functions in
//     the files the winner changed. A Summary is the JSON of the report's
//     "profile" object; [Summary.WriteText] and [Summary.WriteMarkdown]
//     render it.
//   - [Command] runs a user's profiling command (perf record, py-spy, …) in
//     the winner's slot, for other languages, and keeps the files it leaves.
//
// # Shares
//
// Every figure in a Summary is a percentage of the samples of its own side:
// base percentages are shares of the base profile's total, winner
// percentages shares of the winner's. The two sides usually run for the same
// wall time. So a function that fell from 90% to 10% takes a smaller part of
// a shorter run per operation. The shares say where the time goes; the
// benchmark numbers say how much there is.
//
// The runtime injects runtime.asyncPreempt into a goroutine it preempts by
// signal. A sample whose innermost frame is that counts as the interrupted
// function's, on its line. On a busy machine a tight loop is preempted
// often, and those samples were most of its time.
//
// # Paths
//
// Binaries built with -trimpath name their files "module/path/file.go".
// Summarize strips the module path, so every file in a Summary is relative
// to the module root, the directory holding go.mod. Absolute file names
// (a binary built without -trimpath) are made relative to
// [SummaryOptions.Roots] or cut to their base name, so a slot's path never
// reaches a report.
//
// # Failures
//
// Profiling never changes a verdict. Every function here returns an error
// instead of panicking; the caller turns it into a warning. Summarize also
// puts softer problems (few samples, a source file it could not read) in
// [Summary.Warnings].
package profiler
