// Package premerge is optimizer ci's work on a pull request before it is
// merged, apart from the job itself. It finds the pull request in the CI
// job's environment and resolves its two sides in the clone. It makes the
// head a candidate against the merge base, and writes what the CI shows.
//
// # What flows through it
//
// The CI's variables go in through a getenv function; the package reads no
// environment itself. [Detect] makes a [PullRequest] of them, from GitHub
// Actions' event file and variables or GitLab CI's, or from the sides the
// caller names. [PullRequest.Resolve] finds the two commits in the clone
// and their merge base, and says what to fetch when a shallow clone lacks
// them. [PullRequest.Candidates] is the head as a candidate named after
// its branch. [Prepare] does these three in turn and returns the [Job].
//
// After the job, [WriteOutputs] writes the comment, the reports and
// GitHub's step summary, and [Job.Publish] judges the gate before it. The
// gate and the comment's text are package report's ([report.JudgeGate],
// [report.Comment]).
package premerge
