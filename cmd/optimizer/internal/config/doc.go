// Package config is a job's settings as the user gives them:
//   - Run: the flags that optimizer run shares with watch, ci, optimize,
//     bench and demo;
//   - Loop: the optimisation loop's flags of optimizer optimize;
//   - CI: the gate and outputs of optimizer ci;
//   - Merge: the optimizer.toml at the repository root, which sets the same
//     keys.
//
// It validates them and makes the job's spec and the recorded
// configuration of them.
//
// It sits under cmd/optimizer/internal so that only the command imports it:
// configuration stops at cmd (docs/design.md), as cmd/go keeps its flags in
// cmd/go/internal/cfg. Errors are plain; the command makes them usage
// errors.
package config
