//go:build !unix

package worktreepool

import "io/fs"

// hardLinked is never asked where slots are not watched.
func hardLinked(fs.FileInfo) bool { return false }
