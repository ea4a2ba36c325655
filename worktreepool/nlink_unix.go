//go:build unix

package worktreepool

import (
	"io/fs"
	"syscall"
)

// hardLinked reports whether fi is a regular file with more than one hard link.
func hardLinked(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && fi.Mode().IsRegular() && st.Nlink > 1
}
