// Package result holds what a job produces: the [Report] with one
// [CandidateResult] per candidate, the [Event]s a job emits while it runs,
// and the verdicts. It is a leaf: the engine (package evaluator) fills
// these types, and every renderer, stream and client reads them without
// importing the engine.
package result
