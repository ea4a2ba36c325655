//go:build !linux

package worktreepool

// inotify is not supported here: every reset reads a full git status.
type inotify struct{}

func newInotify(root, gitDir string) (*inotify, error) { return nil, errNoInotify }

func (w *inotify) collect() changes { return changes{lost: true} }

func (w *inotify) close() {}
