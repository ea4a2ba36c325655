// Package gobench finds, builds and runs the Go benchmarks that measure a
// change, and reads their results.
//
// # What flows through it
//
// A module root and the files a candidate changes go into [Packages], which
// asks "go list" for the module's packages and returns those whose
// benchmarks can see the change: the packages holding the changed files and
// every package of the module that imports them, directly, transitively or
// from its tests, each with the names of its top-level benchmark functions
// (read from its _test.go files with go/parser, never by running them).
//
// [Build] turns one [Package] into a test binary ("go test -c -trimpath").
// [Calibrate] runs one benchmark of that binary for a target time and
// returns the iteration count the testing package settled on; [Sample] runs
// it once with that fixed count ("-test.benchtime=Nx") and returns its
// [Measurement]s. Both read the results from the binary's whole stdout
// stream, however much else the benchmark prints, and return [ErrNoResult]
// when there is none (a benchmark that calls b.Skip). Every process runs
// through package proc: in its own process group, killed with its group
// when the context is done, and, for Calibrate and Sample, pinned to one
// CPU.
//
// [ParseOutput] reads Go benchmark format lines out of any output, with
// golang.org/x/perf/benchfmt, and tidies units with benchunit, so that
// "ns/op" arrives as "sec/op" and "MB/s" as "B/s".
//
// # Names
//
// A [Measurement]'s Bench is the benchmark's full name without the
// "-GOMAXPROCS" suffix: "BenchmarkX/n=10". A process pinned to one CPU runs
// with GOMAXPROCS=1 and prints no suffix at all; stripping it anyway makes
// names from pinned and unpinned runs agree. As in benchfmt, a sub-benchmark
// name that itself ends in "-digits" loses that ending too.
package gobench
