// Package progress shows a job while it runs.
//   - A [Tracker] turns the evaluator's events into progress lines and a
//     status with the time left ([Tracker.Live]).
//   - [Lines] writes the lines.
//   - [Bars] draws them above a bar on a terminal, whose status is redrawn
//     every second.
//   - A [Screen] is watch's terminal: one line per evaluation, under a
//     transient status line redrawn the same way.
//
// # What flows through it
//
// [result.Event]s come in, from evaluator.Run in this process or from a
// daemon's job through package client; lines of text go out. What a line
// says of a finished candidate is [report.ProgressLine]; the time left is
// [eta.ETA]'s estimate. It decides nothing and reads no flags: the
// caller says whether the output is a terminal.
//
// A Tracker and a Screen are used by one goroutine each.
package progress
