// Package worktreepool keeps a pool of linked git worktrees ("slots") of the
// user's repository, detached at a base commit. It lends them out one at a
// time to run a candidate in.
//
// # What flows through it
//
// [Open] starts making Size slots with `git worktree add --detach --lock` in
// the background and returns at once. The first slot is made alone, so that
// it is ready as soon as one worktree can be made; the rest are made
// concurrently. [Pool.Acquire] hands out a slot as soon as one exists.
// [Pool.AcquireExclusive] takes the whole pool's weight, so that nothing else
// runs while a benchmark does.
//
// A holder stages a candidate with [Slot.Apply] (git apply) or
// [Slot.WriteFiles] (through os.Root) and runs what it runs in [Slot.Dir].
// [Pool.Release] gives the slot back and restores it to base. A slot is never
// rebuilt between candidates. [Pool.Close] removes the slots, or, with
// [Options.Keep], leaves them warm for the next pool to adopt.
//
// # Gating
//
// One semaphore.Weighted of weight Size gates the machine: Acquire takes 1,
// AcquireExclusive takes Size. A buffered channel of *Slot says which slot
// each holder gets. If some slots cannot be made, the pool goes on with the
// rest; Acquire fails with [ErrNoSlots] only when none could.
//
// # Restoring a slot
//
// Staging never touches a slot's index or HEAD, so what a candidate and its
// tests changed shows in a `git status`. The tracked files they changed or
// deleted are rewritten from the index (git checkout-index). The files they
// added, ignored ones included, are removed. Only when HEAD or the index
// moved (a test that commits, say) is the slot reset in full, with git reset
// --hard and git clean. A slot whose .git file was deleted is repaired; one
// that cannot be restored is replaced by a new worktree.
//
// On Linux, a reset looks only where something changed. While a slot is
// clean, an inotify watch on each of its directories and on its git directory
// records every path changed in it, by any process, through any path. A reset
// restores those paths without asking git what changed:
//   - the tracked files among them are rewritten from the index (one git
//     checkout-index; the index is split, so only a few entries are written);
//   - the paths that base's tree lacks are removed;
//   - a tracked directory that changed gets a git status of that directory
//     alone.
//
// On a tree of 20k files such a reset takes about 12 ms, where a full status
// alone takes 60 to 100 (docs/speed.md). A reset falls back to a full status
// when it cannot vouch for what it saw:
//   - the git directory changed (HEAD or the index may have moved);
//   - the kernel dropped events (more than its queue holds, 16k by default);
//   - a changed file has a second hard link (a tracked file may have been
//     written under the other name);
//   - the watch could not be made (fs.inotify.max_user_watches).
//
// inotify misses writes through a shared mmap after the file was closed. It
// also misses writes through a hard link made outside the slot, or made in it
// and removed again. For tests that do either, Options.NoWatch restores every
// slot from a full status.
//
// Every git command the pool runs in a slot names the slot's git directory
// and work tree explicitly. Without that, git in a slot whose .git file a
// test deleted would find the user's own .git above it and act on it.
//
// # Ownership and reclaiming
//
// Slots live in Dir (default <git-common-dir>/optimizer/slots). Each slot
// NAME has a lock file NAME.lock beside it. It holds the owner's PID, and an
// flock(2) for as long as the owning pool has the slot. The kernel drops the
// flock when the owner dies, however it dies. So a slot whose lock can be
// taken is an orphan, with no PID check and no PID reuse to fool it. Git's
// own worktree lock (reason "optimizer pid N") keeps git worktree prune away
// from slots in use. A new pool adopts the orphaned and kept slots it finds,
// resetting them rather than making new ones; [Reclaim] removes them.
//
// Nothing here reads or writes the user's working tree, index, refs or stash.
// The only writes outside Dir are git's worktree bookkeeping in
// <git-common-dir>/worktrees.
package worktreepool
