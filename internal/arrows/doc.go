// Package arrows holds the test that keeps the module's imports pointing
// one way: cmd → client → daemon → optimize → evaluator → worktreepool /
// store / profiler → proc (docs/design.md). It has no code of its own.
package arrows
