package worktreepool

import "errors"

// maxChanged is the most changed paths a slot is restored from by name;
// past it, a full git status is cheaper than a command line of pathspecs.
const maxChanged = 256

// errNoInotify is newInotify's answer where watching is not supported.
var errNoInotify = errors.New("watching a slot for changes is not supported here")

// changes is what an inotify saw happen to a slot since it last looked.
type changes struct {
	paths map[string]bool // slash paths relative to the work tree, each a file or a whole subtree
	// gitDir: something in the slot's git directory changed (HEAD, the
	// index, ...): only a full status can tell what.
	gitDir bool
	// lost: the inotify cannot vouch for what it saw (the kernel dropped
	// events, the root itself changed, or reading failed).
	lost bool
	// moved: a watched directory was deleted, moved or replaced, so its
	// watch is gone or points elsewhere: the watches must be made anew.
	moved bool
}

// full reports whether only a full status can restore the slot.
func (c changes) full() bool { return c.lost || c.gitDir || len(c.paths) > maxChanged }
