// Package report renders results: one job's [result.Report], or one
// candidate's [result.CandidateResult], for people. Every output of the
// CLI, the daemon and the dashboard goes through it, so that a result reads
// the same wherever it is shown.
//
// # What flows through it
//
// A report goes in; text comes out:
//   - [Write] in a format ([FormatText], [FormatJSON], [FormatMarkdown]),
//     or [Text], [JSON] and [Markdown] directly: the job's report;
//   - [Comment]: optimizer ci's pull-request comment for the head a [Gate]
//     judged ([JudgeGate]);
//   - [Reason]: why a candidate got its verdict, in one line, in terms of
//     its numbers (the reports' verdict lines);
//   - [ProgressLine]: a candidate's verdict in a few words, with its time
//     (the progress lines of run);
//   - [WatchLine]: the line watch prints for a save.
//
// It decides no verdict. The rules that make them (what is significantly
// faster or slower) live in stats and evaluator; readers of old
// reports call them through [result.CandidateResult.BenchSlower] and
// BenchFaster.
//
// Every writer returns the first write error. None keeps state: they are
// safe to call concurrently.
package report
