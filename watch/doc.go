// Package watch turns saves in a working tree into candidates, and
// evaluates them: it is optimizer watch without the terminal, which the
// CLI and the daemon both drive.
//
// A [Session] is one watch. Run snapshots the tree and evaluates its
// difference from HEAD (evaluator.Run on the session's pool and store).
// Then it plans new work from each settled change (plan.go), one evaluation
// at a time; a newer save of the same thing cancels the one in flight
// (session.go). What became of each evaluation goes to Session.Out as a
// [Record] (record.go). Its text line and JSON object are what optimizer
// watch prints.
//
// A Watcher walks the tree with fsnotify, which has no recursive watch on
// Linux, and adds every directory and each new one as it appears. It drops
// events that cannot change a candidate: .git, the slots directory, editors'
// temporary, swap and backup files, git-ignored directories and Chmod-only
// events. Events are coalesced with a trailing debounce (Quiet of silence,
// at most MaxWait in all). So a burst of saves, or a checkout that rewrites
// thousands of files, is one Change.
//
// Snapshot reads the working tree's difference from HEAD at that moment
// into a candidate that later edits cannot leak into: tracked edits,
// deletions and untracked files git does not ignore. It reads through git
// with GIT_OPTIONAL_LOCKS=0, so the user's index is never refreshed or
// written.
package watch
