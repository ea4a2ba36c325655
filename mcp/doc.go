// Package mcp serves optimizer's tools over the Model Context Protocol, so
// that a coding agent can call optimizer as its judge.
//
// The tools (evaluate, job, report, profile, benchmarks, targets) are thin.
// The first four speak the daemon's API through a Jobs, which package
// client's Client is. So the daemon's policy, queue, result cache and
// events apply to an agent's jobs as to anyone's. The benchmarks and
// targets tools read base alone. They export its tree with git archive into
// a temporary directory and run its benchmarks there, once per base
// (cached).
//
// No tool writes the user's repository: jobs run in slots, and base is
// read, never checked out. Applying a winner stays a person's command
// (optimizer apply).
//
// cmd/optimizer's mcp command serves the tools on stdio; the daemon
// serves them over streamable HTTP at /v1/mcp, behind its own checks.
package mcp
