//go:build !linux

package worktreepool

// watcher is not supported here: every reset reads a full git status.
type watcher struct{}

func newWatcher(root, gitDir string) (*watcher, error) { return nil, errNoWatch }

func (w *watcher) collect() changes { return changes{lost: true} }

func (w *watcher) close() {}
