// Package evaluator runs one job. It evaluates candidate changes against a
// base commit, tests first, then benchmarks, and says which one, if any, is
// faster. What flows in is [Options] (the base, the candidates, the
// commands and the statistics' settings), a slot [Pool] and a store. What
// flows out is a [Report], the [Event]s of Options.Events while it runs,
// and the job's rows in the store.
//
// # A job, step by step
//
// [Run] (job.go) checks the options and makes the job (newJob), then:
//
//  1. Record (record.go): the job and all its candidates are written in one
//     transaction. Each candidate's change is kept under the job's
//     artifacts for optimizer apply (package apply reads it back).
//  2. Baseline (baseline.go): base's tests start in a slot at once, or come
//     from the store's cache; a test command that cannot run at base stops
//     the job (BaseTestError).
//  3. Resolve (resolve.go): each candidate gets its content id, the git
//     tree it makes on base. One that does not apply fails, and one equal
//     to base or to an earlier candidate is a duplicate. A candidate goes
//     on as soon as its own id is known.
//  4. Phase 1, behaviour (behavior.go): one goroutine per candidate takes a
//     slot, stages the candidate and runs the test command. It releases the
//     slot, then judges the tests against base's (package testjudge). When
//     the slot broke, slot_faults.go retries in another slot. When slots
//     outnumber CPUs, oversubscribed.go runs a timed-out test again alone.
//     Test files a candidate changes are judged as package testedits
//     says, and tests it adds judge the others (judge.go). test_env.go
//     gives the test command its environment (goenv.TestFlags).
//  5. Phase 2, benchmark (benchmark.go): each candidate that passed is
//     measured against base in pairs, one at a time with the machine to
//     itself (machine.go waits for other optimizers). It runs Go benchmarks
//     (sampler_go.go builds them, has package calibrate calibrate them,
//     and makes a measure.GoSampler) or a bench
//     command. For the latter, sampler_cmd.go lays out the trees and
//     measure.Command runs it. Package measure runs the pairs until stats
//     decides, probes the machine around each sample, and measures the
//     noise floor. Then busy.go warns of a busy machine, and cache.go
//     reuses what an earlier job learned of the same content.
//  6. Select (selection.go): the winner, among the candidates significantly
//     faster by at least the threshold.
//  7. Profile (profile.go): base and the winner are profiled.
//  8. Finish (record.go): the report is assembled (report.go) and written
//     with the job's end. [JobReport] (load.go, package stored) reads it
//     back.
//
// Phase times are kept by phases.go; setup.go prepares each slot
// (--setup, copied files); sandbox.go wraps commands in bwrap (package
// sandbox builds the jail); eta.go
// gives package eta a job's limits.
//
// # Concurrency and failure
//
// Run owns every goroutine it starts and waits for them. A slot is
// released on every path: a panic in one candidate's work becomes that
// candidate's error verdict with the stack (panic.go), and the job goes on.
// A candidate's problem is its verdict; only a problem of the job (the
// store, the slots, base) is Run's error. When ctx is cancelled, Run
// returns the partial report, "interrupted", with ctx's error, and emit
// stops waiting for a caller that no longer reads events.
package evaluator
