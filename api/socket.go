package api

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// CheckSocketDir returns an error unless the directory holding the socket
// at path belongs to this user and no one else may write to it. Anyone who
// can write there can put a socket of their own in the daemon's place and
// receive the jobs, and so the code, that clients send.
func CheckSocketDir(path string) error {
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if int(st.Uid) != os.Getuid() {
		return fmt.Errorf("socket directory %s belongs to uid %d, not to this user (%d): remove it, or pass --socket", dir, st.Uid, os.Getuid())
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("socket directory %s may be written by others (mode %v): chmod go-w it, or pass --socket", dir, fi.Mode().Perm())
	}
	return nil
}
