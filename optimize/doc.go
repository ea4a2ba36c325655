// Package optimize runs the optimisation loop: generators propose
// candidates, the evaluator judges them, and failures go back for repair
// while the best go back to be refined.
//
// A run flows as follows (loop.go):
//
//  1. Targets: the functions to make faster, named (ResolveTargets) or the
//     hottest in a CPU profile of the base's benchmarks (HotTargets;
//     target.go).
//  2. Hold out: a seeded share of the benchmarks that execute the targets,
//     found by coverage, is hidden from every generator (holdout.go): the
//     rounds measure only the others.
//  3. Generate: each generator is asked for candidates for each target
//     (generator.go). A stdout generator reads a Request on stdin and prints
//     JSONL candidates; an edit-in-place generator edits a private slot and
//     the change it leaves is a candidate. A call that fails is recorded and
//     the run goes on.
//  4. Judge: the round's candidates, less those whose tree an earlier one
//     had, are one job of the evaluator (evaluator.Run): this package never
//     judges a candidate itself.
//  5. Repair and refine: each failed candidate goes back to its generator
//     with its failure, up to Repairs times along its line. The best so far
//     goes back with its speedup and profile when the round improved it.
//     The loop stops after Rounds, or when Budget is spent. It also stops
//     when a round neither improved the best significantly nor left
//     anything to repair. Significantly means its interval's lower bound is
//     above the best's estimate.
//  6. Re-measure: the best candidate is measured against base again, on the
//     shown and the held-out benchmarks. It runs in a job of its own with
//     RemeasureFactor times the pairs and budget. The report says whether
//     that confirmed it, or found it overfit or suspect.
//
// Every call and every candidate's lineage (generator, round, mode,
// parent, job, verdict) is in the store (optimize_runs, generator_calls,
// lineage).
package optimize
