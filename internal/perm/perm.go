// Package perm keeps the optimizer's state private to its user: its
// directories 0700 and its files 0600. A store holds every candidate's
// code and every command a job ran; no other user of the machine may read
// it.
package perm

import (
	"io/fs"
	"os"
	"syscall"
)

// The modes of private state.
const (
	Dir  fs.FileMode = 0o700
	File fs.FileMode = 0o600
)

// PrivateDir makes dir, and its missing parents, with mode 0700, and takes
// away what group and others may do with it when it exists more open. A
// directory of another user is left as it is.
func PrivateDir(dir string) error {
	if err := os.MkdirAll(dir, Dir); err != nil {
		return err
	}
	return tighten(dir, Dir)
}

// PrivateFile takes away what group and others may do with the file at
// path; a missing file is no error, nor is a file of another user.
func PrivateFile(path string) error {
	err := tighten(path, File)
	if os.IsNotExist(err) {
		return nil
	}
	return err
}

// tighten clears the group and other bits of path's mode, leaving the
// owner's as they are, when path belongs to this process's user.
func tighten(path string, want fs.FileMode) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return nil
	}
	if fi.Mode().Perm()&^want == 0 {
		return nil
	}
	return os.Chmod(path, fi.Mode().Perm()&want)
}
