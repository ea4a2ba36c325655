// Package watch turns saves in a working tree into candidates.
//
// A Watcher walks the tree with fsnotify (which has no recursive watch on
// Linux), adds every directory and each new one as it appears, and drops
// events that cannot change a candidate: .git, the slots directory, editors'
// temporary, swap and backup files, git-ignored directories and Chmod-only
// events. Events are coalesced with a trailing debounce (Quiet of silence,
// at most MaxWait in all), so that a burst of saves, or a checkout that
// rewrites thousands of files, is one Change.
//
// Snapshot reads the working tree's difference from HEAD at that moment,
// tracked edits, deletions and untracked files git does not ignore, into a
// candidate that later edits cannot leak into. It reads through git with
// GIT_OPTIONAL_LOCKS=0, so the user's index is never refreshed or written.
package watch
