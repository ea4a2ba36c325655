// Package gotest reads the event stream of "go test -json" and compares a
// candidate's tests with the baseline's.
//
// # What flows through it
//
// The test command's stdout goes into a [Parser], an io.Writer that parses
// test2json events incrementally. Package proc tees the stream into it
// while the command runs. [Parser.Result] gives a [Run]. It holds one
// [Status] per test, keyed "importpath.TestName" and
// "importpath.TestName/subtest" (see [Key] and [SplitKey]). It also holds
// the status of every package, the packages that failed to build, and a
// capped output excerpt for each failing test and package. [Compare] takes
// the base's Run and a candidate's and returns a [Diff]. It lists the tests
// that passed at base and do not pass in the candidate, and the packages
// that do not build there.
//
// # What the stream may hold
//
// Events with Action start, run, pause, cont, pass, fail, skip, output and
// bench are read. So are build-output and build-fail events carrying
// ImportPath (Go 1.24 and later), with the package's fail event naming the
// failed build in FailedBuild. Lines that are not JSON are kept as text:
//   - a "# pkg" header starts a block of build output: what go test printed
//     on stderr before Go 1.24, or with GODEBUG=gotestjsonbuildtext=1, when
//     stderr is merged into the stream;
//   - "FAIL pkg [build failed]" or "FAIL pkg [setup failed]" marks pkg as
//     not building, whether it arrives as text or as a package's output
//     event.
//
// Any other text is kept, capped, in [Run.Text]. Lines longer
// than [MaxLine] are cut to that length; test2json itself splits long output
// into 1 KiB events, so only foreign text is cut.
//
// # Package-level failures
//
// A package can fail without any test failing: a panic in TestMain, an
// os.Exit(1) after the tests, a build or setup failure. Such a package gets
// an entry of its own, Tests["importpath"] = fail, with its output in
// Output["importpath"]. A package that fails because one of its tests fails
// gets no such entry. Build failures are also listed in [Run.BuildFailed].
// A test or package that started but never ended (the stream was cut, for
// example by a timeout) counts as failed.
//
// # Output excerpts
//
// For every failing test and package, [Run.Output] keeps the first
// [ExcerptHeadLines] and the last [ExcerptTailLines] lines of its output, at
// most [MaxExcerpt] bytes. So the first file:line error and the end of a
// panic's stack both survive. The "=== RUN/PAUSE/CONT/NAME" framing lines are
// dropped. A parent test's excerpt ends with the excerpts of its failing
// subtests.
package gotest
