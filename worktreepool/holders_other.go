//go:build !linux

package worktreepool

// flockHolders cannot ask the kernel here: the holders' records alone say.
func flockHolders(path string) (map[int]bool, bool) { return map[int]bool{}, false }
