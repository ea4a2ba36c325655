//go:build !unix

package worktreepool

import "io/fs"

// hardLinked cannot tell here: it says no.
func hardLinked(fs.FileInfo) bool { return false }
