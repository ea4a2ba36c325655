// Package config is a job's settings as the user gives them: the flags that
// optimizer run shares with watch, ci, optimize, bench and demo (Run), the
// optimisation loop's of optimizer optimize (Loop) and the gate and outputs
// of optimizer ci (CI), the optimizer.toml at the repository root that sets
// the same keys (Merge),
// their validation, and the evaluator.Options and the recorded
// configuration they become.
//
// It sits under cmd/optimizer/internal so that only the command imports it:
// configuration stops at cmd (docs/design.md), as cmd/go keeps its flags in
// cmd/go/internal/cfg. Errors are plain; the command makes them usage
// errors.
package config
