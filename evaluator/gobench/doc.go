// Package gobench finds, builds and runs the Go benchmarks that measure a
// change, and reads their results.
//
// # What flows through it
//
// A module root and the files a candidate changes go into [Packages], which
// asks "go list" for the module's packages. It returns those whose
// benchmarks can see the change. They are the packages holding the changed
// files, and every package of the module that imports them, directly,
// transitively or from its tests. Each comes with the names of its
// top-level benchmark functions. Those are read from its _test.go files
// with go/parser, never by running them.
//
// [Build] turns one [Package] into a test binary ("go test -c -trimpath").
// [Calibrate] runs one benchmark of that binary for a target time. It
// returns the iteration count the testing package settled on for it and for
// each of its sub-benchmarks, each its own ([Count]). On a contended CPU
// that count is raised to hold the target in CPU time ([CPUScaled]). [Sample] runs one
// benchmark once with a fixed count ("-test.benchtime=Nx") and returns its
// [Measurement]s. It runs a sub-benchmark alone if named so, with its own
// anchored pattern ([Pattern]). Both pass the user's extra arguments
// (--bench-arg). [Filter] selects benchmarks by full name, slash by slash,
// as "go test -bench" does. Both read the results from the binary's whole
// stdout stream, however much else the benchmark prints. They return
// [ErrNoResult] when there is none (a benchmark that calls b.Skip). Every
// process runs through package proc, in its own process group, and is
// killed with its group when the context is done. For Calibrate and Sample
// it is pinned to one CPU.
//
// [ParseOutput] reads Go benchmark format lines out of any output, with
// golang.org/x/perf/benchfmt, and tidies units with benchunit, so that
// "ns/op" arrives as "sec/op" and "MB/s" as "B/s".
//
// # Names
//
// A [Measurement]'s Bench is the benchmark's full name without the
// "-GOMAXPROCS" suffix: "BenchmarkX/n=10". Calibrate and Sample set
// -test.cpu to the GOMAXPROCS the process runs with. That is 1 when pinned,
// where the testing package prints no suffix. So only that suffix is
// removed, and a sub-benchmark called "size-1" keeps its name.
// [ParseOutput], for output of unknown origin, removes any "-digits" ending,
// as benchfmt does.
package gobench
